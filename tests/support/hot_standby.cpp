#include "testing/hot_standby.hpp"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/process.hpp"
#include "db/connection.hpp"
#include "testing/child_process.hpp"

namespace chopar::testing {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The value of host= in with-test-pg's URL: the primary's socket folder.
std::string HostOf(const std::string& url) {
  const auto at = url.find("host=");
  if (at == std::string::npos) throw std::runtime_error("no host= in " + url);
  const auto end = url.find('&', at);
  return url.substr(at + 5, end == std::string::npos ? std::string::npos : end - at - 5);
}

// `argv` as the server's account (PostgreSQL's tools refuse root).
std::vector<std::string> AsServerAccount(std::vector<std::string> argv) {
  const std::string user = Env("CHOPAR_TEST_PG_OS_USER");
  if (geteuid() == 0 && !user.empty() && user != "root") {
    argv.insert(argv.begin(), {"runuser", "-u", user, "--"});
  }
  return argv;
}

// A hot standby refuses to start with less of these than its primary has
// (with-test-pg raises max_connections; CHOPAR_TEST_PG_OPTIONS may raise
// more): the primary's own values, as server options.
std::string PrimaryLimits() {
  auto primary = db::Connection::Open(Env("CHOPAR_TEST_DATABASE_URL"));
  return primary
      .ExecText(
          "SELECT string_agg(format(' -c %s=%s', name, setting), '') FROM pg_settings WHERE name "
          "IN "
          "('max_connections', 'max_worker_processes', 'max_wal_senders', "
          "'max_prepared_transactions', 'max_locks_per_transaction')",
          {})
      .String(0, 0);
}

void Run(const std::vector<std::string>& argv) {
  if (const int status = core::RunProcess(AsServerAccount(argv)); status != 0) {
    throw std::runtime_error(argv.front() + " exited with " + std::to_string(status));
  }
}

}  // namespace

bool HotStandby::Available() {
  return !Env("CHOPAR_TEST_DATABASE_URL").empty() && !Env("CHOPAR_TEST_PG_BINDIR").empty() &&
         access((Env("CHOPAR_TEST_PG_BINDIR") + "/pg_basebackup").c_str(), X_OK) == 0;
}

HotStandby::HotStandby() {
  std::string folder = "/tmp/chopar-standby.XXXXXX";
  if (mkdtemp(folder.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = folder;
  // The server's account owns the folder it writes the data and socket to.
  const std::string user = Env("CHOPAR_TEST_PG_OS_USER");
  if (geteuid() == 0 && !user.empty()) {
    const passwd* account = getpwnam(user.c_str());
    if (account == nullptr || chown(folder.c_str(), account->pw_uid, account->pw_gid) != 0) {
      throw std::runtime_error("cannot give " + folder + " to " + user);
    }
  }
  const std::string bindir = Env("CHOPAR_TEST_PG_BINDIR");
  // -R: standby.signal and primary_conninfo (the primary's socket), so it
  // starts as a standby that streams from the primary. The throwaway
  // cluster trusts local replication connections (initdb -A trust).
  Run({bindir + "/pg_basebackup", "-d",
       "host=" + HostOf(Env("CHOPAR_TEST_DATABASE_URL")) + " user=postgres", "-D",
       (dir_ / "data").string(), "-R", "-X", "stream", "-c", "fast"});
  PgCtl("start", true);
  running_ = true;
}

HotStandby::~HotStandby() {
  try {
    if (running_) PgCtl("stop", false);
  } catch (const std::exception&) {
    // Removed below all the same; the test reported what went wrong.
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

void HotStandby::PgCtl(const std::string& action, bool with_options) const {
  std::vector<std::string> argv = {Env("CHOPAR_TEST_PG_BINDIR") + "/pg_ctl",
                                   "-D",
                                   (dir_ / "data").string(),
                                   "-l",
                                   (dir_ / "server.log").string(),
                                   "-w",
                                   "-t",
                                   "60",
                                   "-s",
                                   action};
  if (action == "stop") argv.insert(argv.end(), {"-m", "immediate"});
  if (with_options) {
    argv.insert(argv.end(), {"-o", "-c listen_addresses='' -k " + dir_.string() +
                                       " -c fsync=off -c shared_buffers=64MB"
                                       // No query of a test on the standby
                                       // holds its replay up (the default
                                       // waits up to 30 s on a conflict).
                                       " -c hot_standby_feedback=on" +
                                       PrimaryLimits()});
  }
  Run(argv);
}

std::string HotStandby::UrlOf(const std::string& primary_url) const {
  std::string url = primary_url;
  const std::string host = HostOf(primary_url);
  url.replace(url.find("host=" + host) + 5, host.size(), dir_.string());
  return url;
}

std::string HotStandby::Scalar(const std::string& primary_url, const std::string& sql) const {
  auto conn = db::Connection::Open(UrlOf(primary_url));
  const db::Result result = conn.ExecText(sql, {});
  return result.Empty() || result.IsNull(0, 0) ? "" : result.String(0, 0);
}

void HotStandby::PauseReplay() const {
  (void)Scalar(Env("CHOPAR_TEST_DATABASE_URL"), "SELECT pg_wal_replay_pause()");
}

void HotStandby::ResumeReplay() const {
  (void)Scalar(Env("CHOPAR_TEST_DATABASE_URL"), "SELECT pg_wal_replay_resume()");
}

void HotStandby::CatchUpWith(const std::string& primary_url) const {
  auto primary = db::Connection::Open(primary_url);
  const std::string lsn =
      primary.ExecText("SELECT pg_current_wal_insert_lsn()::text", {}).String(0, 0);
  const bool caught_up = WaitUntil(
      [&] {
        if (Scalar(primary_url, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn") ==
            "t") {
          return true;
        }
        // An insert position at a page's start counts the page header
        // that only the next record writes: on a quiet primary replay
        // would stop just short of it. A record of no consequence moves
        // it on.
        primary.ExecText("SELECT pg_logical_emit_message(false, 'chopar-test', '')", {});
        return false;
      },
      std::chrono::seconds(30));
  if (!caught_up) throw std::runtime_error("the standby did not replay " + lsn + " within 30 s");
}

void HotStandby::Promote() const { PgCtl("promote", false); }

void HotStandby::Stop() {
  PgCtl("stop", false);
  running_ = false;
}

}  // namespace chopar::testing
