// Operating the built binary: the embedded cluster as root from a private
// folder and as a regular user, stopping it with the last chopar, the stored
// API key, the open-file limit and /metrics while the database is stuck.

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

namespace fs = std::filesystem;
using testing::Api;
using testing::BlackBox;
using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::ReadFirstLine;
using testing::WaitUntil;
using namespace std::chrono_literals;

// Whether a PostgreSQL answers on the Unix socket in `folder`.
bool ClusterAnswers(const fs::path& folder) {
  const std::string conninfo = "host=" + folder.string() + " dbname=postgres user=postgres";
  return PQping(conninfo.c_str()) == PQPING_OK;
}

// The soft and hard "Max open files" of process `pid`.
std::pair<std::string, std::string> OpenFileLimits(pid_t pid) {
  std::ifstream limits("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(limits, line)) {
    if (!line.starts_with("Max open files")) continue;
    std::istringstream fields(line.substr(14));
    std::string soft, hard;
    fields >> soft >> hard;
    return {soft, hard};
  }
  return {};
}

class Operations : public BlackBox {
 protected:
  // `chopar serve` with data_dir `data_dir`, working directory `cwd`.
  std::unique_ptr<ChildProcess> Serve(const fs::path& cwd, const fs::path& data_dir, int port,
                                      const std::string& log,
                                      std::vector<std::string> prefix = {}) {
    std::vector<std::string> argv = std::move(prefix);
    argv.push_back(CHOPAR_BINARY);
    argv.push_back("serve");
    return std::make_unique<ChildProcess>(
        argv,
        std::map<std::string, std::string>{
            {"CHOPAR_SERVER_LISTEN", "127.0.0.1:" + std::to_string(port)},
            {"CHOPAR_SERVER_DATA_DIR", data_dir.string()}},
        dir_ / log, cwd);
  }
};

// A container's usual place, /root/chopar: a folder whose parent only root
// may enter. The postgres account cannot reach it, so the cluster is put in
// a folder it owns, the start says where, and a stop stops it.
TEST_F(Operations, EmbeddedClusterStartsAsRootFromAPrivateFolderAndSaysWhere) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  const fs::path home = dir_ / "root";
  fs::create_directories(home / "chopar");
  fs::permissions(home, fs::perms::owner_all, fs::perm_options::replace);
  const int port = FreeLoopbackPort();
  auto serve = Serve(home / "chopar", "./var", port, "serve.log");
  const fs::path key = home / "chopar" / "var" / "api_key";
  ASSERT_TRUE(WaitUntil([&] { return fs::exists(key) || !serve->Running(); }, 120s))
      << serve->Output();
  Api api(port, ReadFirstLine(key));
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  const fs::path link = home / "chopar" / "var" / "pg";
  ASSERT_TRUE(fs::is_symlink(link)) << serve->Output();
  const fs::path cluster = fs::read_symlink(link);
  relocated_.push_back(cluster);
  EXPECT_NE(serve->Output().find("embedded PostgreSQL in " + cluster.string()), std::string::npos)
      << serve->Output();
  // initdb's own "you can now start the database server using pg_ctl …"
  // would mislead: its output goes to the cluster's log.
  EXPECT_EQ(serve->Output().find("pg_ctl"), std::string::npos) << serve->Output();
  EXPECT_EQ(serve->Output().find("Success."), std::string::npos) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "aziz@example.uz"}}).status, 200);

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
  EXPECT_FALSE(ClusterAnswers(cluster)) << "the embedded PostgreSQL was left running";

  // The next start finds the same cluster through the link.
  auto again = Serve(home / "chopar", "./var", port, "again.log");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << again->Output();
  EXPECT_EQ(api.Call("GET", "/v1/users/1").status, 200);
  again->Signal(SIGTERM);
  EXPECT_EQ(again->Wait(30s), 0) << again->Output();
}

// Run as a regular account, chopar runs initdb and the server itself.
TEST_F(Operations, EmbeddedClusterAsARegularUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to another account";
  const fs::path home = dir_ / "user";
  fs::create_directories(home);
  ASSERT_EQ(core::RunProcess({"chown", "nobody:nogroup", home.string()}), 0);
  const int port = FreeLoopbackPort();
  auto serve =
      // setpriv execs chopar itself (runuser would stay as its parent and
      // report the signal it forwarded as its own exit status).
      Serve(home, home / "var", port, "serve.log",
            {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  const fs::path key = home / "var" / "api_key";
  ASSERT_TRUE(WaitUntil([&] { return fs::exists(key) || !serve->Running(); }, 120s))
      << serve->Output();
  Api api(port, ReadFirstLine(key));
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_FALSE(fs::is_symlink(home / "var" / "pg"));
  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
  EXPECT_FALSE(ClusterAnswers(home / "var" / "pg"));
}

// The cluster stays while any chopar uses it and stops with the last one,
// whichever of them started it.
TEST_F(Operations, TheLastChoparToStopStopsTheEmbeddedPostgres) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, {}, "serve.log");
  ASSERT_TRUE(WaitUntil([&] { return fs::exists(dir_ / "var" / "api_key"); }, 120s))
      << serve->Output();
  Api api(port, ReadFirstLine(dir_ / "var" / "api_key"));
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  auto worker = Start("worker", FreeLoopbackPort(), {}, "worker.log");
  ASSERT_TRUE(
      WaitUntil([&] { return worker->Output().find("channels:") != std::string::npos; }, 60s))
      << worker->Output();
  const fs::path cluster = fs::canonical(dir_ / "var" / "pg");

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
  EXPECT_TRUE(ClusterAnswers(cluster)) << "stopped under the worker";
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
  EXPECT_FALSE(ClusterAnswers(cluster)) << "the embedded PostgreSQL was left running\n"
                                        << worker->Output();
}

TEST_F(Operations, DanglingApiKeyFileIsAClearErrorNotACrash) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db;
  fs::create_directories(dir_ / "var");
  fs::create_symlink(dir_ / "var" / "gone" / "api_key", dir_ / "var" / "api_key");
  auto serve = Start("serve", FreeLoopbackPort(), {{"CHOPAR_DATABASE_URL", db.url()}}, "serve.log");
  const int status = serve->Wait(60s);
  EXPECT_NE(status, 0) << serve->Output();
  EXPECT_LT(status, 128) << "killed by signal " << status - 128 << "\n" << serve->Output();
  EXPECT_NE(serve->Output().find((dir_ / "var" / "api_key").string()), std::string::npos)
      << serve->Output();
}

TEST_F(Operations, ServeRaisesItsOpenFileLimitToTheHardLimit) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db;
  const int port = FreeLoopbackPort();
  // A low soft limit, as many shells and container runtimes give.
  ChildProcess serve(
      {"/bin/bash", "-c", std::string("ulimit -Sn 256 && exec ") + CHOPAR_BINARY + " serve"},
      {{"CHOPAR_DATABASE_URL", db.url()},
       {"CHOPAR_SERVER_API_KEY", "key"},
       {"CHOPAR_SERVER_LISTEN", "127.0.0.1:" + std::to_string(port)},
       {"CHOPAR_SERVER_DATA_DIR", (dir_ / "var").string()}},
      dir_ / "serve.log", dir_);
  Api api(port, "key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve.Output();
  const auto [soft, hard] = OpenFileLimits(serve.pid());
  EXPECT_NE(soft, "256") << serve.Output();
  EXPECT_EQ(soft, hard);
}

// A scrape reads cached gauges: a table locked by a long migration or
// VACUUM FULL must not hold /metrics (nor the handler threads) up.
TEST_F(Operations, MetricsScrapeDoesNotWaitForTheDatabase) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db;
  const int port = FreeLoopbackPort();
  auto serve =
      Start("serve", port, {{"CHOPAR_DATABASE_URL", db.url()}, {"CHOPAR_SERVER_API_KEY", "key"}},
            "serve.log");
  Api api(port, "key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api.Call("GET", "/metrics").status, 200);

  auto locker = db.Connect();
  locker.ExecScript("BEGIN; LOCK TABLE chopar.deliveries IN ACCESS EXCLUSIVE MODE");
  for (int i = 0; i < 5; ++i) {
    const auto started = std::chrono::steady_clock::now();
    const auto scrape = api.Call("GET", "/metrics");
    const auto took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(scrape.status, 200) << scrape.error_message;
    EXPECT_LT(took, 1s) << "scrape " << i << " waited on the database";
    EXPECT_NE(scrape.body.find("chopar_delivery_queue_depth"), std::string::npos);
  }
  locker.ExecScript("ROLLBACK");
  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

}  // namespace
}  // namespace chopar
