#include "app/template_files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace chopar::app {
namespace {

namespace fs = std::filesystem;

class TemplateFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("chopar-template-files-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }
  std::vector<std::string> Names(const DocumentListing& listing) {
    std::vector<std::string> names;
    for (const auto& file : listing.files) names.push_back(file.Name());
    return names;
  }

  fs::path dir_;
};

TEST(FormatDocument, IndentsByTwoSortsKeysKeepsUtf8AndEndsInANewline) {
  const auto document = nlohmann::json::parse(R"({"b": [1, {"d": null, "c": "ō ⏰"}], "a": {}})");
  EXPECT_EQ(FormatDocument(document),
            "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"c\": \"ō ⏰\",\n      \"d\": "
            "null\n    }\n  ]\n}\n");
}

TEST_F(TemplateFilesTest, ListsByFolderThenGlobalThenEachTenantThenKey) {
  Write("templates/task.due.json", "{}");
  Write("templates/invoice.paid.json", "{}");
  Write("tenants/b/templates/x.json", "{}");
  Write("tenants/a/templates/x.json", "{}");
  Write("tenants/a/layouts/brand.json", "{}");
  Write("layouts/brand.json", "{}");
  Write("README.md", "left alone");
  Write(".git/config", "left alone");
  Write("templates/.draft.json.swp", "a dot file: left alone");
  Write("tenants/a/notes.txt", "not a folder of documents: left alone");
  const DocumentListing listing = ListDocumentFiles(dir_, {"layouts", "templates"});
  EXPECT_EQ(Names(listing),
            (std::vector<std::string>{"layouts/brand.json", "tenants/a/layouts/brand.json",
                                      "templates/invoice.paid.json", "templates/task.due.json",
                                      "tenants/a/templates/x.json", "tenants/b/templates/x.json"}));
  EXPECT_TRUE(listing.problems.empty()) << listing.problems.front();
  EXPECT_EQ(listing.files[4].tenant, "a");
  EXPECT_EQ(listing.files[4].key, "x");
}

TEST_F(TemplateFilesTest, NamesWhatDoesNotBelongInAFolder) {
  Write("templates/task.due.txt", "{}");
  Write("templates/.json", "{}");  // a dot file: left alone
  Write("templates/nested/x.json", "{}");
  Write("tenants/stray.json", "{}");
  Write("layouts", "a file where a folder belongs");
  const DocumentListing listing = ListDocumentFiles(dir_, {"layouts", "templates"});
  EXPECT_TRUE(listing.files.empty());
  EXPECT_EQ(listing.problems, (std::vector<std::string>{
                                  "tenants/stray.json: is not a folder", "layouts: is not a folder",
                                  "templates/nested: only <key>.json files belong here",
                                  "templates/task.due.txt: only <key>.json files belong here"}));
  EXPECT_THROW(ListDocumentFiles(dir_ / "missing", {"templates"}), std::runtime_error);
}

TEST_F(TemplateFilesTest, ReadsJsonAndSaysWhyNot) {
  Write("templates/a.json", R"({"title": "ok"})");
  Write("templates/b.json", R"({"title": )");
  const DocumentListing listing = ListDocumentFiles(dir_, {"templates"});
  ASSERT_EQ(listing.files.size(), 2u);
  EXPECT_EQ(ReadDocumentFile(listing.files[0])["title"], "ok");
  try {
    (void)ReadDocumentFile(listing.files[1]);
    FAIL() << "b.json is not JSON";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not JSON"), std::string::npos) << e.what();
  }
}

TEST_F(TemplateFilesTest, WritesOnlyWhatChangedAndLeavesNoTemporaryFile) {
  const fs::path path = DocumentPath(dir_, "acme", "templates", "task.due");
  EXPECT_EQ(path, dir_ / "tenants/acme/templates/task.due.json");
  EXPECT_TRUE(WriteDocumentFile(path, "{}\n"));
  EXPECT_FALSE(WriteDocumentFile(path, "{}\n"));
  EXPECT_TRUE(WriteDocumentFile(path, "[]\n"));
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "[]\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(path.parent_path()), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace chopar::app
