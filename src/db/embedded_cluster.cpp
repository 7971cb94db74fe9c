#include "db/embedded_cluster.hpp"

#include <libpq-fe.h>
#include <pwd.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "core/process.hpp"
#include "db/connection.hpp"

namespace chopar::db {
namespace fs = std::filesystem;
namespace {

// How long the backends of this process's just-closed connections may take
// to exit before StopIfUnused counts them as another process's.
constexpr std::chrono::milliseconds kGoneGrace{1500};

bool RunningAsRoot() { return geteuid() == 0; }

// Commands that touch the cluster's files run as its owner.
std::vector<std::string> AsOwner(std::vector<std::string> argv) {
  if (!RunningAsRoot()) return argv;
  argv.insert(argv.begin(), {"runuser", "-u", "postgres", "--"});
  return argv;
}

// Runs `argv` as the cluster's owner with its output appended to `log`:
// initdb's and pg_ctl's own advice ("you can now start the database server
// using pg_ctl …") is about a cluster chopar runs itself, and would mislead.
int RunLogged(const std::vector<std::string>& argv, const fs::path& log, bool new_session = false) {
  std::vector<std::string> shell = {"sh", "-c", "log=$1; shift; exec \"$@\" >>\"$log\" 2>&1", "sh",
                                    log.string()};
  shell.insert(shell.end(), argv.begin(), argv.end());
  return core::RunProcess(AsOwner(shell), new_session);
}

void Run(const std::vector<std::string>& argv, const fs::path& log, const std::string& what) {
  const int status = RunLogged(argv, log);
  if (status != 0) {
    throw std::runtime_error(what + " failed (exit " + std::to_string(status) + "); see " +
                             log.string());
  }
}

// Whether the postgres account can enter `folder` (and so every folder above it).
bool PostgresCanReach(const fs::path& folder) {
  return core::RunProcess({"runuser", "-u", "postgres", "--", "test", "-x", folder.string()}) == 0;
}

// Where the cluster of a data_dir the postgres account cannot reach lives
// (root's private /root/chopar, typically): a new folder of its own under
// /var/lib/chopar, which `link` then points to, so later starts find it.
fs::path Relocate(const fs::path& link) {
  const fs::path base = "/var/lib/chopar";
  fs::create_directories(base);
  fs::permissions(base,
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec |
                      fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);
  std::string pattern = (base / "pg-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder under " + base.string() +
                             " for the embedded PostgreSQL");
  }
  const fs::path target = pattern;
  fs::create_symlink(target, link);
  spdlog::info(
      "the postgres account cannot reach {}: the embedded PostgreSQL's files go to {} ({} links "
      "there)",
      link.parent_path().string(), target.string(), link.string());
  return target;
}

bool Ping(const std::string& conninfo) { return PQping(conninfo.c_str()) == PQPING_OK; }

void GiveToPostgres(const fs::path& path) {
  if (!RunningAsRoot()) return;
  const passwd* pw = getpwnam("postgres");
  if (pw == nullptr) throw std::runtime_error("running as root needs a 'postgres' account for the embedded database");
  if (chown(path.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
    throw std::runtime_error("cannot chown " + path.string() + " to postgres");
  }
}

}  // namespace

std::string FindPostgresBinDir() {
  std::vector<fs::path> candidates;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(entry.path() / "bin" / "initdb")) candidates.push_back(entry.path() / "bin");
  }
  if (candidates.empty()) {
    throw std::runtime_error("no PostgreSQL server found under /usr/lib/postgresql; install postgresql-15 "
                             "or set [database] url");
  }
  std::sort(candidates.begin(), candidates.end(), [](const fs::path& a, const fs::path& b) {
    return std::stoi(a.parent_path().filename()) < std::stoi(b.parent_path().filename());
  });
  return candidates.back().string();
}

EmbeddedCluster EmbeddedCluster::Start(const fs::path& folder_in, const std::string& bin_dir_in) {
  EmbeddedCluster cluster;
  cluster.folder_ = fs::absolute(folder_in).lexically_normal();
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(cluster.folder_, ec))) {
    cluster.folder_ = fs::weakly_canonical(cluster.folder_);
  } else if (RunningAsRoot() && !fs::exists(cluster.folder_)) {
    fs::create_directories(cluster.folder_.parent_path());
    if (!PostgresCanReach(cluster.folder_.parent_path()))
      cluster.folder_ = Relocate(cluster.folder_);
  }
  spdlog::info("embedded PostgreSQL in {}", cluster.folder_.string());
  cluster.bin_dir_ = bin_dir_in.empty() ? FindPostgresBinDir() : bin_dir_in;
  const fs::path& folder = cluster.folder_;
  const fs::path data = folder / "data";
  const std::string socket = (folder / ".s.PGSQL.5432").string();
  if (socket.size() >= 107) {
    throw std::runtime_error("data_dir path is too long for a Unix socket (" + socket +
                             "); choose a shorter [server] data_dir");
  }
  const std::string server_conninfo = "host=" + folder.string() + " dbname=postgres user=postgres";
  cluster.conninfo_ = "host=" + folder.string() + " dbname=chopar user=postgres";
  const std::string log = (folder / "server.log").string();
  const fs::path setup_log = folder / "setup.log";

  if (!Ping(server_conninfo)) {
    if (!fs::exists(data / "PG_VERSION")) {
      spdlog::info("initialising the embedded PostgreSQL cluster in {} (initdb's output: {})",
                   data.string(), setup_log.string());
      fs::create_directories(folder);
      fs::permissions(folder, fs::perms::owner_all, fs::perm_options::replace);
      GiveToPostgres(folder);
      if (RunningAsRoot() && core::RunProcess({"runuser", "-u", "postgres", "--", "test", "-w", folder.string()}) != 0) {
        throw std::runtime_error("the postgres account cannot reach " + folder.string() +
                                 " (a parent folder is private); choose a [server] data_dir it can reach, "
                                 "such as /var/lib/chopar, or run chopar as a regular user");
      }
      Run({cluster.bin_dir_ + "/initdb", "-D", data.string(), "-U", "postgres", "-A", "trust", "-E",
           "UTF8", "--locale=C.UTF-8"},
          setup_log, "initdb");
      std::ofstream conf(data / "postgresql.conf", std::ios::app);
      conf << "\n# chopar embedded cluster: Unix socket in its own folder only\n"
           << "listen_addresses = ''\n"
           << "unix_socket_directories = '" << folder.string() << "'\n"
           << "unix_socket_permissions = 0700\n"
           << "max_connections = 200\n";
    }
    // pg_ctl start also copes with a stale postmaster.pid left by a crash.
    spdlog::info("starting the embedded PostgreSQL cluster (log: {})", log);
    const int status = RunLogged(
        {cluster.bin_dir_ + "/pg_ctl", "-D", data.string(), "-l", log, "-w", "-t", "60", "start"},
        setup_log, /*new_session=*/true);
    if (status == 0) {
      cluster.started_here_ = true;
    } else if (!Ping(server_conninfo)) {
      // Another chopar may have started it at the same moment; give it time.
      for (int i = 0; i < 100 && !Ping(server_conninfo); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (!Ping(server_conninfo)) throw std::runtime_error("the embedded PostgreSQL did not start; see " + log);
    }
  }

  auto admin = Connection::Open(server_conninfo);
  if (admin.ExecText("SELECT 1 FROM pg_database WHERE datname = 'chopar'", {}).Empty()) {
    try {
      admin.ExecScript("CREATE DATABASE chopar");
    } catch (const std::exception&) {
      // Created by a concurrent chopar in the meantime.
      if (admin.ExecText("SELECT 1 FROM pg_database WHERE datname = 'chopar'", {}).Empty()) throw;
    }
  }
  return cluster;
}

void EmbeddedCluster::StopIfUnused() {
  if (stopped_) return;
  try {
    auto conn = Connection::Open(conninfo_);
    // This process's pools are closed, but their backends may take a moment
    // to exit: only connections still there after a grace period are
    // another process's.
    const auto deadline = std::chrono::steady_clock::now() + kGoneGrace;
    std::int64_t others = 0;
    for (;;) {
      others =
          conn.ExecText(
                  "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                  "AND pid <> pg_backend_pid()",
                  {})
              .Int(0, 0);
      if (others == 0 || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (others > 0) {
      spdlog::info("embedded PostgreSQL left running: {} connections of other processes", others);
      return;
    }
  } catch (const std::exception& e) {
    spdlog::warn("embedded PostgreSQL: {}", e.what());
    return;
  }
  spdlog::info("stopping the embedded PostgreSQL cluster");
  RunLogged({bin_dir_ + "/pg_ctl", "-D", (folder_ / "data").string(), "-m", "fast", "-w", "stop"},
            folder_ / "setup.log");
  stopped_ = true;
}

}  // namespace chopar::db
