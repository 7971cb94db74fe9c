#pragma once

#include <filesystem>
#include <string>

namespace chopar::db {

// A private PostgreSQL cluster in a folder of chopar's data directory, for
// running without a configured database. It listens only on a Unix socket
// inside that folder (mode 0700, trust authentication), so nothing outside
// this account (or root) can reach it.
//
// Start() initialises the cluster on first use (as the `postgres` account when
// running as root, since initdb refuses root), starts it, or reuses it when it
// is already running — another chopar process on the same folder, or a
// postmaster left behind by a chopar that was killed. Running as root from a
// folder the postgres account cannot reach (/root/chopar), the cluster goes
// to a new folder under /var/lib/chopar and `folder` becomes a symbolic link
// to it (logged). initdb's and pg_ctl's output goes to <folder>/setup.log.
// Not thread-safe.
class EmbeddedCluster {
 public:
  // Throws std::runtime_error with the reason and the server log's path.
  static EmbeddedCluster Start(const std::filesystem::path& folder, const std::string& bin_dir);

  EmbeddedCluster(EmbeddedCluster&&) = default;
  EmbeddedCluster& operator=(EmbeddedCluster&&) = default;
  ~EmbeddedCluster() = default;

  // libpq connection string of the `chopar` database.
  [[nodiscard]] const std::string& conninfo() const { return conninfo_; }
  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }
  [[nodiscard]] bool started_here() const { return started_here_; }

  // Stops the server, whichever chopar started it, unless another process
  // is connected to it (connections of this process that are still ending
  // get a moment to go). Call after every pool on it is closed. Never
  // throws (a failure is logged).
  void StopIfUnused();

 private:
  EmbeddedCluster() = default;
  std::filesystem::path folder_;
  std::string bin_dir_;
  std::string conninfo_;
  bool started_here_ = false;
  bool stopped_ = false;
};

// The bin folder of the newest installed PostgreSQL server (initdb, pg_ctl).
std::string FindPostgresBinDir();

}  // namespace chopar::db
