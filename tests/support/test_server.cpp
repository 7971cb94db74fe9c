#include "testing/test_server.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "core/process.hpp"
#include "db/connection.hpp"

namespace chopar::testing {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

bool TestServer::Available() {
  return !Env("CHOPAR_TEST_PG_DATA").empty() && !Env("CHOPAR_TEST_PG_BINDIR").empty() &&
         !Env("CHOPAR_TEST_PG_SERVER_OPTIONS").empty();
}

void TestServer::PgCtl(const std::string& action, bool immediate, bool with_options) {
  std::vector<std::string> argv;
  // pg_ctl refuses root; it runs as the server's own account.
  const std::string user = Env("CHOPAR_TEST_PG_OS_USER");
  if (geteuid() == 0 && !user.empty() && user != "root") {
    argv = {"runuser", "-u", user, "--"};
  }
  argv.insert(argv.end(),
              {Env("CHOPAR_TEST_PG_BINDIR") + "/pg_ctl", "-D", Env("CHOPAR_TEST_PG_DATA"), "-l",
               Env("CHOPAR_TEST_PG_LOG"), "-w", "-t", "60", "-s", action});
  if (immediate) argv.insert(argv.end(), {"-m", "immediate"});
  if (with_options) argv.insert(argv.end(), {"-o", Env("CHOPAR_TEST_PG_SERVER_OPTIONS")});
  if (const int status = core::RunProcess(argv); status != 0) {
    throw std::runtime_error("pg_ctl " + action + " exited with " + std::to_string(status));
  }
}

void TestServer::CrashAndRestart() { PgCtl("restart", true, true); }
void TestServer::Crash() { PgCtl("stop", true, false); }
void TestServer::Start() { PgCtl("start", false, true); }

void TestServer::KeepCommitsThroughCrashes(const std::string& database_url) {
  auto conn = db::Connection::Open(database_url);
  conn.ExecScript(
      "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = on', "
      "current_database()); END $$");
}

}  // namespace chopar::testing
