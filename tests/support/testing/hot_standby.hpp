#pragma once

#include <filesystem>
#include <string>

namespace chopar::testing {

// A streaming replica of the server scripts/with-test-pg started: a base
// backup of it (pg_basebackup -R, WAL streamed) in a temporary folder,
// started as a hot standby listening only on a Unix socket there, as the
// account the primary runs as. Stopped and removed when the object goes.
// Every database of the primary, those created later included, is there.
class HotStandby {
 public:
  // Whether with-test-pg exported what this needs (else tests skip).
  static bool Available();

  // Takes the backup and starts the standby; returns once it accepts
  // connections. Throws std::runtime_error when a step fails.
  HotStandby();
  ~HotStandby();
  HotStandby(const HotStandby&) = delete;
  HotStandby& operator=(const HotStandby&) = delete;

  // `primary_url` (a URL of with-test-pg's server, "…?host=<dir>&…") with
  // its host replaced by this standby's socket folder: the same database,
  // read on the standby.
  [[nodiscard]] std::string UrlOf(const std::string& primary_url) const;

  // pg_wal_replay_pause() / pg_wal_replay_resume() on the standby: WAL is
  // still received, not applied, so what commits on the primary afterwards
  // is not visible here until resumed.
  void PauseReplay() const;
  void ResumeReplay() const;
  // Waits until the standby has replayed everything the primary at
  // `primary_url` has written now, committed or not yet flushed (the test
  // server commits asynchronously); throws after 30 s.
  void CatchUpWith(const std::string& primary_url) const;
  // `pg_ctl stop -m immediate`: the standby is down until the object goes.
  void Stop();
  // `pg_ctl promote`: the standby leaves recovery on a new timeline and
  // takes writes, as a failover's target does; returns once it does.
  void Promote() const;

  // Runs SQL on the standby in the database of `primary_url`; the first
  // column of the first row ("" if none).
  [[nodiscard]] std::string Scalar(const std::string& primary_url, const std::string& sql) const;

 private:
  void PgCtl(const std::string& action, bool with_options) const;

  std::filesystem::path dir_;
  bool running_ = false;
};

}  // namespace chopar::testing
