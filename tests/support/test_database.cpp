#include "testing/test_database.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "db/channel_kinds.hpp"
#include "db/migrate.hpp"

namespace chopar::testing {
namespace {

std::string ServerUrl() {
  const char* url = std::getenv("CHOPAR_TEST_DATABASE_URL");
  return url ? url : "";
}

// Replaces the database of a postgresql:// URL ("/postgres?" → "/<name>?").
std::string WithDatabase(const std::string& url, const std::string& name) {
  const auto scheme = url.find("://");
  const auto slash = url.find('/', scheme + 3);
  const auto query = url.find('?', slash);
  return url.substr(0, slash + 1) + name + (query == std::string::npos ? "" : url.substr(query));
}

std::string TemplateName() { return "chopar_tpl_" + db::MigrationsFingerprint(); }

// Creates the migrated template once per server (processes race safely under
// an advisory lock).
void EnsureTemplate(db::Connection& admin) {
  admin.ExecScript("SELECT pg_advisory_lock(4242)");
  const std::string name = TemplateName();
  const auto exists =
      admin.ExecText("SELECT 1 FROM pg_database WHERE datname = $1", db::Params(name)).Rows() > 0;
  if (!exists) {
    // Built under another name and renamed, so a failed migration leaves no template.
    const std::string building = name + "_building";
    admin.ExecScript("DROP DATABASE IF EXISTS " + building);
    admin.ExecScript("CREATE DATABASE " + building);
    {
      auto conn = db::Connection::Open(WithDatabase(ServerUrl(), building));
      db::Migrate(conn);
    }
    admin.ExecScript("ALTER DATABASE " + building + " RENAME TO " + name);
  }
  admin.ExecScript("SELECT pg_advisory_unlock(4242)");
}

}  // namespace

bool TestDatabase::Available() { return !ServerUrl().empty(); }

TestDatabase::TestDatabase(Contents contents) {
  static std::atomic<int> counter{0};
  name_ = "chopar_t_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  auto admin = db::Connection::Open(ServerUrl());
  if (contents == Contents::kEmpty) {
    admin.ExecScript("CREATE DATABASE " + name_);
  } else {
    EnsureTemplate(admin);
    admin.ExecScript("CREATE DATABASE " + name_ + " TEMPLATE " + TemplateName() +
                     " STRATEGY FILE_COPY");
  }
  url_ = WithDatabase(ServerUrl(), name_);
  if (contents != Contents::kEmpty) {
    // As every process does after migrating: the kinds this binary
    // registered (a test's own channel) become kinds the CHECKs accept.
    auto conn = Connect();
    db::RegisterChannelKinds(conn);
  }
}

TestDatabase::~TestDatabase() {
  try {
    auto admin = db::Connection::Open(ServerUrl());
    admin.ExecScript("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // The server is going away with the run; nothing to clean.
  }
}

db::Connection TestDatabase::Connect() const { return db::Connection::Open(url_); }

std::string TestDatabase::Scalar(const std::string& sql) const {
  auto conn = Connect();
  auto result = conn.ExecText(sql, {});
  return result.Rows() > 0 && !result.IsNull(0, 0) ? result.String(0, 0) : "";
}

void PgTest::SetUp() {
  if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  db_ = std::make_unique<TestDatabase>();
  pool_ = std::make_unique<db::Pool>(db_->url(), 8);
}

}  // namespace chopar::testing
