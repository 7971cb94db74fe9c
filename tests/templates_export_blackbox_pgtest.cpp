// `chopar templates export` and `import`: the built binary promoting the
// templates of a staging database, made through the API of a running
// `chopar serve`, to a production database through a folder, and back out
// again byte for byte; a folder with a bad file writes nothing.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "db/connection.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

namespace fs = std::filesystem;
using core::ParseJsonOrDiscarded;
using nlohmann::json;
using testing::Api;
using testing::ChildProcess;
using testing::TestDatabase;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr char kApiKey[] = "templates-export-key";

// Texts in three scripts, every kind of member a template has.
const json kTaskDue = {
    {"category", "tasks"},
    {"default_locale", "en"},
    {"tags", {"work", "deadline"}},
    {"layout", "brand"},
    {"digest", {{"window_seconds", 600}, {"key", "{{project}}"}, {"max_items", 20}}},
    {"locales",
     {{"en",
       {{"title", "Task due: {{task.title}}"},
        {"body", "Due at {{task.due}}"},
        {"email",
         {{"subject", "Due soon: {{task.title}}"},
          {"html", "<p>Your task <strong>{{task.title}}</strong> is due.</p>\n{{> footer}}"}}},
        {"actions", {{{"label", "Open"}, {"url", "/tasks/{{task.id}}"}}}}}},
      {"uz-Cyrl", {{"title", "Муддат яқин: {{task.title}} ⏰"}}},
      {"uz",
       {{"title", "Muddat yaqin: {{task.title}}"},
        {"sms", {{"text", "Vazifa \"{{task.title}}\""}}}}}}}};
const json kInvoicePaid = {
    {"default_locale", "uz"},
    {"throttle", {{"limit", 3}, {"window_seconds", 3600}}},
    {"locales", {{"uz", {{"title", "To‘lov qabul qilindi: {{amount}} so‘m"}}}}}};
// A workflow of steps: their names, conditions and delays go and come back.
const json kTaskEscalated = {
    {"default_locale", "uz"},
    {"locales", {{"uz", {{"title", "Vazifa: {{task}}"}}}}},
    {"steps",
     {{{"type", "channel"}, {"channel", "push"}, {"name", "push_first"}},
      {{"type", "delay"}, {"seconds", 600}},
      {{"type", "channel"},
       {"first_of", {"sms", "email"}},
       {"condition", "notification.seen == false && user.data.plan == \"pro\""}}}}};
const json kAcmeTaskDue = {{"category", "tasks"},
                           {"default_locale", "en"},
                           {"layout", "brand"},
                           {"escalate", {{"after_seconds", 600}, {"channels", {"email"}}}},
                           {"locales", {{"en", {{"title", "[Acme] {{task.title}}"}}}}}};
const json kBrand = {{"html", "<div class=\"brand\">{{{content}}}</div>\n{{> footer}}"}};
const json kAcmeBrand = {{"html", "<div class=\"acme\">{{{content}}}</div>"},
                         {"text", "ACME\n\n{{{content}}}"}};
const json kFooter = {{"text", "<p>— chopar, Toshkent</p>"}};

// The versions of templates, layouts and partials.
constexpr char kVersions[] = "SELECT count(*) FROM chopar.template_versions";

// Every file under `dir` by its path under it, with its bytes.
std::map<std::string, std::string> Files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    files[fs::relative(entry.path(), dir).generic_string()] =
        std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return files;
}

class TemplatesFolder : public testing::ServeBlackBox {
 protected:
  TemplatesFolder() : ServeBlackBox(kApiKey) {}

  void SetUp() override {
    ServeBlackBox::SetUp();
    if (IsSkipped()) return;
    production_ = std::make_unique<TestDatabase>();
  }

  // Runs `chopar templates <args>` on `database`; returns its exit code and
  // keeps its output (stdout and stderr) in `output_`.
  int Run(const TestDatabase& database, const std::string& args) {
    ChildProcess run({"/bin/sh", "-c", "\"$CHOPAR\" templates " + args},
                     {{"CHOPAR", CHOPAR_BINARY}, {"CHOPAR_DATABASE_URL", database.url()}},
                     dir_ / "command.log", dir_);
    const int code = run.Wait(120s);
    output_ = run.Output();
    return code;
  }

  // `chopar serve` on staging (db_), the templates put through its API.
  std::unique_ptr<ChildProcess> ServeStaging() {
    auto serve = StartServe("staging.log");
    EXPECT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 30s)) << serve->Output();
    return serve;
  }

  void Put(const std::string& path, const json& body) {
    const auto response = api_->Call("PUT", path, body);
    ASSERT_TRUE(response.status == 200 || response.status == 201)
        << path << ": " << response.status << " " << response.body;
  }

  std::string Template(const TestDatabase& database, const std::string& type) {
    return database.Scalar("SELECT locales::text FROM chopar.templates WHERE type = '" + type +
                           "'");
  }

  std::unique_ptr<TestDatabase> production_;
  std::string output_;
};

// Staging's templates (two global, a tenant's own) go to a folder, one
// pretty-printed file each as GET shows it without its times; into
// production, each created; out of production the same bytes; in again,
// each unchanged; a file edited in review updates that one template only.
TEST_F(TemplatesFolder, PromotesStagingToProductionByteForByte) {
  {
    auto serve = ServeStaging();
    Put("/v1/tenants/acme", json{{"name", "Acme"}});
    Put("/v1/partials/footer", kFooter);
    Put("/v1/layouts/brand", kBrand);
    Put("/v1/layouts/brand?tenant=acme", kAcmeBrand);
    Put("/v1/templates/task.due", kTaskDue);
    Put("/v1/templates/invoice.paid", kInvoicePaid);
    Put("/v1/templates/task.escalated", kTaskEscalated);
    Put("/v1/templates/task.due?tenant=acme", kAcmeTaskDue);

    const fs::path staging = dir_ / "staging";
    ASSERT_EQ(Run(*db_, "export staging"), 0) << output_;
    EXPECT_NE(output_.find("wrote tenants/acme/templates/task.due.json"), std::string::npos)
        << output_;
    EXPECT_NE(output_.find("exported 7 documents"), std::string::npos) << output_;
    const auto files = Files(staging);
    ASSERT_EQ(files.size(), 7u) << output_;
    for (const auto& [name, path] : std::map<std::string, std::string>{
             {"templates/task.due.json", "/v1/templates/task.due"},
             {"templates/invoice.paid.json", "/v1/templates/invoice.paid"},
             {"templates/task.escalated.json", "/v1/templates/task.escalated"},
             {"tenants/acme/templates/task.due.json", "/v1/templates/task.due?tenant=acme"},
             {"layouts/brand.json", "/v1/layouts/brand"},
             {"tenants/acme/layouts/brand.json", "/v1/layouts/brand?tenant=acme"},
             {"partials/footer.json", "/v1/partials/footer"}}) {
      ASSERT_TRUE(files.contains(name)) << name;
      const std::string& text = files.at(name);
      json shown = ParseJsonOrDiscarded(api_->Call("GET", path).body);
      for (const char* member : {"type", "key", "tenant", "version", "created_at", "updated_at"}) {
        shown.erase(member);
      }
      // The old settings, given, are not also written as the steps GET
      // shows them converted into.
      if (shown.contains("steps") && (!shown["digest"].is_null() || !shown["throttle"].is_null() ||
                                      !shown["escalate"].is_null())) {
        shown["steps"] = nullptr;
      }
      EXPECT_EQ(text, shown.dump(2) + "\n") << name << ": two-space indents, sorted keys, UTF-8";
    }
    EXPECT_NE(files.at("templates/task.due.json").find("\n  \"default_locale\": \"en\",\n"),
              std::string::npos);
    EXPECT_NE(files.at("templates/task.due.json").find("Муддат яқин"), std::string::npos);
    EXPECT_NE(files.at("templates/task.escalated.json").find("\"name\": \"push_first\""),
              std::string::npos)
        << files.at("templates/task.escalated.json");

    // Exported again unchanged: nothing is written.
    ASSERT_EQ(Run(*db_, "export staging"), 0) << output_;
    EXPECT_NE(output_.find("0 written, 7 unchanged, 0 removed"), std::string::npos) << output_;
  }

  // Production has the tenant (its own record) and no templates.
  production_->Scalar("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme')");
  ASSERT_EQ(Run(*production_, "import staging"), 0) << output_;
  // Stable order: layouts, partials, then templates (what a template names
  // is there first); in each the global ones by key, then each tenant's.
  std::optional<std::size_t> last;
  for (const char* name :
       {"layouts/brand.json", "tenants/acme/layouts/brand.json", "partials/footer.json",
        "templates/invoice.paid.json", "templates/task.due.json", "templates/task.escalated.json",
        "tenants/acme/templates/task.due.json"}) {
    const auto at = output_.find(std::string("created ") + name + "\n");
    ASSERT_NE(at, std::string::npos) << name << "\n" << output_;
    if (last) {
      EXPECT_GT(at, *last) << name << "\n" << output_;
    }
    last = at;
  }
  EXPECT_NE(output_.find("7 created, 0 updated, 0 unchanged"), std::string::npos) << output_;
  EXPECT_EQ(Template(*production_, "task.due"), Template(*db_, "task.due"));
  // Each write is a PUT: a version of it recorded, by the command line.
  EXPECT_EQ(production_->Scalar("SELECT string_agg(DISTINCT created_by, ',') FROM "
                                "chopar.template_versions"),
            "cli");
  EXPECT_EQ(production_->Count(kVersions), 7);

  ASSERT_EQ(Run(*production_, "export production"), 0) << output_;
  EXPECT_EQ(Files(dir_ / "production"), Files(dir_ / "staging")) << "byte for byte";

  ASSERT_EQ(Run(*production_, "import staging"), 0) << output_;
  EXPECT_NE(output_.find("unchanged templates/task.due.json"), std::string::npos) << output_;
  EXPECT_NE(output_.find("0 created, 0 updated, 7 unchanged"), std::string::npos) << output_;
  EXPECT_EQ(production_->Count(kVersions), 7) << "unchanged: no new version";

  // A review changes one title (and the file's layout, which is not the
  // document): that template alone is updated.
  json edited = kInvoicePaid;
  edited["locales"]["uz"]["title"] = "To‘lov: {{amount}} so‘m";
  std::ofstream(dir_ / "staging/templates/invoice.paid.json") << edited.dump();
  std::ofstream(dir_ / "staging/tenants/acme/templates/task.due.json") << kAcmeTaskDue.dump();
  ASSERT_EQ(Run(*production_, "import staging"), 0) << output_;
  EXPECT_NE(output_.find("updated templates/invoice.paid.json"), std::string::npos) << output_;
  EXPECT_NE(output_.find("unchanged tenants/acme/templates/task.due.json"), std::string::npos)
      << output_;
  EXPECT_NE(output_.find("0 created, 1 updated, 6 unchanged"), std::string::npos) << output_;
  EXPECT_NE(Template(*production_, "invoice.paid").find("To‘lov: {{amount}}"), std::string::npos);
  EXPECT_EQ(production_->Count(kVersions), 8);

  // A template deleted from production leaves its next export.
  production_->Scalar("DELETE FROM chopar.templates WHERE type = 'task.due'");
  ASSERT_EQ(Run(*production_, "export production"), 0) << output_;
  EXPECT_NE(output_.find("removed templates/task.due.json"), std::string::npos) << output_;
  EXPECT_FALSE(fs::exists(dir_ / "production/templates/task.due.json"));
}

// One file PUT would refuse, one that is not JSON, one of a name no type
// has, and a tenant production does not have: each named with its field,
// exit 1, and the good file beside them is not written either.
TEST_F(TemplatesFolder, ABadFileWritesNothing) {
  const fs::path folder = dir_ / "review";
  fs::create_directories(folder / "templates");
  fs::create_directories(folder / "layouts");
  fs::create_directories(folder / "partials");
  fs::create_directories(folder / "tenants/globex/templates");
  std::ofstream(folder / "templates/invoice.paid.json") << kInvoicePaid.dump(2) << "\n";
  std::ofstream(folder / "partials/footer.json") << kFooter.dump(2) << "\n";
  json untitled = kTaskEscalated;
  untitled["locales"]["uz"].erase("title");
  std::ofstream(folder / "templates/task.escalated.json") << untitled.dump(2) << "\n";
  json bad_condition = kTaskEscalated;
  bad_condition["steps"][2]["condition"] = "notification.seen == ";
  std::ofstream(folder / "templates/task.late.json") << bad_condition.dump(2) << "\n";
  std::ofstream(folder / "templates/task.done.json") << "{\"default_locale\": \"en\",";
  std::ofstream(folder / "templates/Task.json") << kInvoicePaid.dump();
  // Names a layout neither the folder nor production has.
  std::ofstream(folder / "templates/task.due.json") << kTaskDue.dump(2) << "\n";
  std::ofstream(folder / "layouts/plain.json") << json{{"html", "<div>no content</div>"}}.dump();
  std::ofstream(folder / "tenants/globex/templates/task.due.json") << kAcmeTaskDue.dump();
  std::ofstream(folder / "README.md") << "Reviewed templates.\n";

  EXPECT_EQ(Run(*production_, "import review"), 1) << output_;
  for (const char* problem :
       {"templates/task.escalated.json: invalid_field locales.uz.title",
        "templates/task.late.json: invalid_field steps[2].condition", "at position ",
        "templates/task.done.json: is not JSON",
        "templates/Task.json: the file's name must be a notification type",
        "layouts/plain.json: invalid_field html",
        "templates/task.due.json: invalid_field layout: layout brand is neither among the files "
        "nor on this database",
        "tenants/globex: tenant globex does not exist", "7 problems; nothing written"}) {
    EXPECT_NE(output_.find(problem), std::string::npos) << problem << "\n" << output_;
  }
  EXPECT_EQ(output_.find("created"), std::string::npos) << output_;
  EXPECT_EQ(production_->Count("SELECT count(*) FROM chopar.templates"), 0);
  EXPECT_EQ(production_->Count("SELECT count(*) FROM chopar.partials"), 0);

  // Fixed, the same folder goes in whole: the layout the template names
  // is stored before it.
  for (const char* name : {"templates/task.escalated.json", "templates/task.late.json",
                           "templates/task.done.json", "templates/Task.json"}) {
    fs::remove(folder / name);
  }
  std::ofstream(folder / "layouts/brand.json") << kBrand.dump();
  std::ofstream(folder / "layouts/plain.json", std::ios::trunc)
      << json{{"html", "<div>{{{content}}}</div>"}}.dump();
  fs::remove_all(folder / "tenants");
  EXPECT_EQ(Run(*production_, "import review"), 0) << output_;
  EXPECT_NE(output_.find("created templates/task.due.json"), std::string::npos) << output_;
  EXPECT_NE(output_.find("5 created, 0 updated, 0 unchanged"), std::string::npos) << output_;
  EXPECT_EQ(production_->Count("SELECT count(*) FROM chopar.templates"), 2);
}

// Two imports into one database at once: the second waits, saying so,
// until the first has written its last file, then runs; their writes do
// not interleave. The first is held half-way by a row lock this test takes
// on the layout it updates, so the two overlap however they are scheduled.
TEST_F(TemplatesFolder, ASecondImportWaitsForTheFirst) {
  const fs::path first = dir_ / "first";
  const fs::path second = dir_ / "second";
  fs::create_directories(first / "layouts");
  fs::create_directories(first / "partials");
  fs::create_directories(first / "templates");
  fs::create_directories(second / "partials");
  fs::create_directories(second / "templates");
  std::ofstream(first / "layouts/brand.json") << kBrand.dump();
  std::ofstream(first / "partials/footer.json") << kFooter.dump();
  std::ofstream(first / "templates/task.due.json") << kTaskDue.dump();
  std::ofstream(second / "partials/header.json") << json{{"text", "<h1>chopar</h1>"}}.dump();
  std::ofstream(second / "templates/invoice.paid.json") << kInvoicePaid.dump();
  production_->Scalar(
      "INSERT INTO chopar.layouts (key, html) VALUES ('brand', '<i>{{{content}}}</i>') RETURNING "
      "1");

  auto holder = db::Connection::Open(production_->url());
  holder.ExecText("BEGIN", {});
  holder.ExecText("SELECT 1 FROM chopar.layouts WHERE key = 'brand' FOR UPDATE", {});
  const auto run = [this](const std::string& folder) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{"/bin/sh", "-c", "\"$CHOPAR\" templates import " + folder},
        std::map<std::string, std::string>{{"CHOPAR", CHOPAR_BINARY},
                                           {"CHOPAR_DATABASE_URL", production_->url()}},
        dir_ / (folder + ".log"), dir_);
  };
  auto importing_first = run("first");
  // Held at its first write: waiting for the row this test holds.
  ASSERT_TRUE(WaitUntil(
      [&] {
        return production_->Count(
                   "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE "
                   "datname = current_database() AND wait_event_type = 'Lock' "
                   "AND query LIKE '%chopar.layouts%'") == 1;
      },
      60s))
      << importing_first->Output();
  auto importing_second = run("second");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return importing_second->Output().find("waiting for another import into this database") !=
                   std::string::npos ||
               !importing_second->Running();
      },
      60s));
  EXPECT_TRUE(importing_second->Running()) << importing_second->Output();
  EXPECT_EQ(production_->Count(kVersions), 0) << "the second wrote nothing meanwhile";

  holder.ExecText("COMMIT", {});
  ASSERT_EQ(importing_first->Wait(120s), 0) << importing_first->Output();
  ASSERT_EQ(importing_second->Wait(120s), 0) << importing_second->Output();
  EXPECT_NE(importing_first->Output().find("2 created, 1 updated, 0 unchanged"), std::string::npos)
      << importing_first->Output();
  EXPECT_NE(importing_second->Output().find("2 created, 0 updated, 0 unchanged"), std::string::npos)
      << importing_second->Output();
  // Every version of the second's files was written after every one of the
  // first's.
  EXPECT_EQ(production_->Scalar(
                "SELECT (SELECT max(created_at) FROM chopar.template_versions WHERE key IN "
                "('brand', 'footer', 'task.due')) < (SELECT min(created_at) FROM "
                "chopar.template_versions WHERE key IN ('header', 'invoice.paid'))"),
            "t");
  EXPECT_EQ(production_->Count(kVersions), 5);
}

TEST_F(TemplatesFolder, ImportOfAFolderThatIsNotThereSaysSo) {
  EXPECT_EQ(Run(*production_, "import nowhere"), 2) << output_;
  EXPECT_NE(output_.find("nowhere is not a folder"), std::string::npos) << output_;
}

}  // namespace
}  // namespace chopar
