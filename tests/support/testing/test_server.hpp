#pragma once

#include <string>

namespace chopar::testing {

// The PostgreSQL server scripts/with-test-pg started, for fault tests that
// crash it: the tests that use it must not run beside others (ctest
// RUN_SERIAL), since every session on the server is cut. Not thread-safe.
class TestServer {
 public:
  // Whether with-test-pg exported what these need (else tests skip).
  static bool Available();

  // `pg_ctl restart -m immediate`: the server is killed as in a crash (no
  // shutdown checkpoint, every session cut) and started again; returns
  // once it accepts connections (crash recovery done). Throws
  // std::runtime_error when pg_ctl fails.
  static void CrashAndRestart();
  // `pg_ctl stop -m immediate`: down until Start().
  static void Crash();
  static void Start();

  // Makes commits to the database at `database_url` survive a crash: the
  // test server runs with synchronous_commit off, under which a crash loses
  // the last commits (a test would then find its own rows gone). Sessions
  // opened afterwards commit synchronously. Throws db::DbError.
  static void KeepCommitsThroughCrashes(const std::string& database_url);

 private:
  static void PgCtl(const std::string& action, bool immediate, bool with_options);
};

}  // namespace chopar::testing
