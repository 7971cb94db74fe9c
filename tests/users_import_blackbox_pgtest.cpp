// `chopar users import`: the built binary against a test database, on CSV
// and NDJSON files and stdin.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using nlohmann::json;
using testing::BlackBox;
using testing::ChildProcess;
using namespace std::chrono_literals;

class UsersImportCommand : public BlackBox {
 protected:
  void SetUp() override {
    BlackBox::SetUp();
    if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    db_ = std::make_unique<testing::TestDatabase>();
  }

  // Writes `text` to `name` in the test's folder; returns its path.
  std::string File(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  // Runs `command` (a shell command line naming the binary as $CHOPAR);
  // returns its exit code and keeps its output in `output_`.
  int Run(const std::string& command) {
    ChildProcess run({"/bin/sh", "-c", command},
                     {{"CHOPAR", CHOPAR_BINARY}, {"CHOPAR_DATABASE_URL", db_->url()}},
                     dir_ / "import.log", dir_);
    const int code = run.Wait(120s);
    output_ = run.Output();
    return code;
  }

  json User(std::int64_t id) {
    return json::parse(db_->Scalar(
        "SELECT json_build_object('email', email, 'phone', phone, 'timezone', timezone, 'locale', "
        "locale, 'preferences', preferences, 'data', data) FROM chopar.users WHERE id = " +
        std::to_string(id)));
  }

  std::unique_ptr<testing::TestDatabase> db_;
  std::string output_;
};

// A CSV of 2,000 users and three bad rows: the good rows are imported, each
// bad one printed with its line number, and the exit code says some failed.
// Importing again merges (updates) instead of creating.
TEST_F(UsersImportCommand, CsvRowsBecomeUsersAndBadRowsAreNamedByLine) {
  std::string csv = "id,email,phone,timezone,locale,data.plan,data.seats,preferences\n";
  for (int id = 1; id <= 2000; ++id) {
    csv += std::to_string(id) + ",u" + std::to_string(id) + "@example.uz,,Asia/Tashkent,uz," +
           (id % 2 == 0 ? "pro" : "free") + "," + std::to_string(id % 7) + ",\n";
  }
  csv += "2001,not an address,,,,,,\n";  // line 2002
  csv += "2002,b@example.uz\n";          // line 2003
  csv += "2003,\"c@example.uz\",+998 90 123-45-67,,en,\"a, b\",,\"{\"\"sms\"\": true}\"\n";
  csv += "x,d@example.uz,,,,,,\n";  // line 2005
  const std::string path = File("users.csv", csv);

  EXPECT_EQ(Run("\"$CHOPAR\" users import " + path), 1) << output_;
  EXPECT_NE(output_.find("line 2002: invalid_field email"), std::string::npos) << output_;
  EXPECT_NE(output_.find("line 2003: invalid_field"), std::string::npos) << output_;
  EXPECT_NE(output_.find("line 2005: invalid_field id"), std::string::npos) << output_;
  EXPECT_NE(output_.find("received 2004, imported 2001 (created 2001, updated 0), failed 3"),
            std::string::npos)
      << output_;
  EXPECT_NE(output_.find("lines read"), std::string::npos) << "progress: " << output_;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 2001);
  EXPECT_EQ(User(2), (json{{"email", "u2@example.uz"},
                           {"phone", nullptr},
                           {"timezone", "Asia/Tashkent"},
                           {"locale", "uz"},
                           {"preferences", json::object()},
                           {"data", {{"plan", "pro"}, {"seats", 2}}}}));
  EXPECT_EQ(User(2003)["data"], (json{{"plan", "a, b"}}));
  EXPECT_EQ(User(2003)["phone"], "+998901234567");
  EXPECT_EQ(User(2003)["preferences"], (json{{"sms", true}}));

  // Again, with only the data column: merged into what is stored.
  const std::string again = File("again.csv", "id,data.plan\n1,team\n2,\n");
  EXPECT_EQ(Run("\"$CHOPAR\" users import " + again), 0) << output_;
  EXPECT_NE(output_.find("imported 2 (created 0, updated 2), failed 0"), std::string::npos)
      << output_;
  EXPECT_EQ(User(1)["data"], (json{{"plan", "team"}, {"seats", 1}}));
  EXPECT_EQ(User(2)["data"], (json{{"plan", "pro"}, {"seats", 2}}));
}

TEST_F(UsersImportCommand, NdjsonFromStdinWithItsFormatNamed) {
  std::string ndjson;
  for (int id = 1; id <= 50; ++id) {
    ndjson += json{{"id", id}, {"locale", "ru"}, {"data", {{"n", id}}}}.dump() + "\n";
  }
  ndjson += "{\"id\": 51, \"email\": 5}\n";
  const std::string path = File("users.txt", ndjson);
  EXPECT_EQ(Run("\"$CHOPAR\" users import - --format ndjson < " + path), 1) << output_;
  EXPECT_NE(output_.find("line 51: invalid_field email"), std::string::npos) << output_;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users WHERE locale = 'ru'"), 50);
  EXPECT_EQ(User(50)["data"], (json{{"n", 50}}));
  // Without --format a name that says nothing is refused before any work.
  EXPECT_EQ(Run("\"$CHOPAR\" users import " + path), 2) << output_;
}

TEST_F(UsersImportCommand, AnUnknownCsvColumnStopsBeforeAnythingIsWritten) {
  const std::string path = File("bad.csv", "id,email,plan\n1,a@example.uz,pro\n");
  EXPECT_EQ(Run("\"$CHOPAR\" users import " + path), 2) << output_;
  EXPECT_NE(output_.find("unknown column \"plan\""), std::string::npos) << output_;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 0);
}

}  // namespace
}  // namespace chopar
