// The short slice of the failover promise (`make ha-lab` is the long run):
// the built `chopar serve` on a three-node pg_auto_failover cluster
// (tests/ha/cluster.sh: a monitor, a primary and a synchronous secondary on
// 127.0.0.1), its [database] url the multi-host one with
// target_session_attrs=read-write, while notifications are posted through
// the API without pause and the primary is switched over once. Then every
// notification the API accepted (2xx) is stored on the new primary, every
// delivery is sent with exactly one sink message, and chopar took writes
// again: the time from the switchover's start to the first notification
// accepted after the outage is printed. With CHOPAR_TEST_HA_FAULT=kill-primary
// the fault is a kill -9 of the primary (cluster.sh kill-primary) instead:
// by hand, to measure a crash's outage (about 13 s with cluster.sh's
// timings).

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "blackbox_support.hpp"
#include "core/process.hpp"
#include "db/connection.hpp"
#include "testing/child_process.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr char kApiKey[] = "ha-switchover-key";
// Users the notifications go round; the email channel's hourly limit is
// raised so that every delivery is sent, however fast the posts go.
constexpr int kUsers = 20;

struct Posted {
  Clock::time_point started, ended;
  long status = 0;
  std::int64_t id = 0;  // the notification's, when accepted
};

class HaSwitchover : public testing::BlackBox {
 protected:
  void SetUp() override {
    BlackBox::SetUp();
    root_ = std::filesystem::temp_directory_path() /
            ("chopar-ha-switchover-" + std::to_string(getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    // cluster.sh makes its folder the postgres account's when run as root.
    std::filesystem::permissions(root_, std::filesystem::perms::owner_all |
                                            std::filesystem::perms::group_exec |
                                            std::filesystem::perms::others_exec);
    cluster_dir_ = (root_ / "cluster").string();
  }
  void TearDown() override {
    serve_.reset();  // SIGKILL if still running: nothing may hold the cluster
    if (!cluster_dir_.empty()) Cluster("down", 60s);
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
    BlackBox::TearDown();
  }

  // Runs `cluster.sh <command> DIR`; its exit status and output (stdout
  // and stderr).
  std::pair<int, std::string> Cluster(const std::string& command, std::chrono::seconds timeout) {
    const auto output = root_ / (command + ".out");
    ChildProcess script({"/bin/bash", CHOPAR_HA_CLUSTER, command, cluster_dir_}, {}, output);
    const int status = script.Wait(timeout);
    std::ifstream in(output);
    std::stringstream text;
    text << in.rdbuf();
    return {status, text.str()};
  }

  // The value of a NAME='value' line of `output` ("" if none).
  static std::string Assignment(const std::string& output, const std::string& name) {
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
      const std::string prefix = name + "='";
      if (line.starts_with(prefix) && line.ends_with("'")) {
        return line.substr(prefix.size(), line.size() - prefix.size() - 1);
      }
    }
    return "";
  }

  std::filesystem::path root_;
  std::string cluster_dir_;
  std::unique_ptr<ChildProcess> serve_;
};

TEST_F(HaSwitchover, ChoparRidesAPlannedSwitchoverWithNothingLostOrSentTwice) {
  // Not a skip: CI installs it (scripts/install-deps), and a missing one
  // must not pass for a failover that was never tried.
  ASSERT_EQ(core::RunProcess({"/bin/sh", "-c", "command -v pg_autoctl >/dev/null"}), 0)
      << "pg_autoctl is not installed: this test needs the Debian package "
         "postgresql-15-auto-failover (scripts/install-deps installs it)";

  const Clock::time_point test_began = Clock::now();
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const auto [up_status, up_output] = Cluster("up", 150s);
  ASSERT_EQ(up_status, 0) << "cluster.sh up failed: " << up_output;
  std::printf("ha: cluster up in %.1f s\n", seconds_since(test_began));
  const std::string url = Assignment(up_output, "CHOPAR_HA_URL");
  ASSERT_NE(url.find("target_session_attrs=read-write"), std::string::npos) << up_output;
  const auto [first_status, first_primary] = Cluster("primary", 30s);
  ASSERT_EQ(first_status, 0) << first_primary;

  const int port = FreeLoopbackPort();
  serve_ = Start("serve", port,
                 {{"CHOPAR_DATABASE_URL", url},
                  {"CHOPAR_SERVER_API_KEY", kApiKey},
                  {"CHOPAR_LIMITS_HOURLY_EMAIL", "1000000"}},
                 "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve_->Output();
  for (int user = 1; user <= kUsers; ++user) {
    const auto put = api.Call("PUT", "/v1/users/" + std::to_string(user),
                              {{"email", "ha" + std::to_string(user) + "@example.uz"}});
    ASSERT_EQ(put.status, 200) << put.body;
  }

  // One client posting without pause (each request waits for the last),
  // from before the switchover to well after it.
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<Posted> posted;
  std::thread sender([&] {
    Api client(port, kApiKey);
    for (int i = 0; !stop; ++i) {
      Posted one;
      one.started = Clock::now();
      const auto response =
          client.Call("POST", "/v1/notifications",
                      {{"user_id", 1 + i % kUsers}, {"type", "ha.switchover"}, {"title", "n"}});
      one.ended = Clock::now();
      one.status = response.status;
      if (response.status / 100 == 2) {
        one.id = nlohmann::json::parse(response.body, nullptr, false).value("id", std::int64_t{0});
      }
      {
        std::lock_guard lock(mutex);
        posted.push_back(one);
      }
      std::this_thread::sleep_for(20ms);
    }
  });
  const auto accepted_so_far = [&] {
    std::lock_guard lock(mutex);
    return std::count_if(posted.begin(), posted.end(),
                         [](const Posted& p) { return p.status / 100 == 2; });
  };
  EXPECT_TRUE(WaitUntil([&] { return accepted_so_far() >= 30; }, 20s));

  const char* fault_env = std::getenv("CHOPAR_TEST_HA_FAULT");
  const std::string fault = fault_env != nullptr && *fault_env ? fault_env : "switchover";
  ASSERT_TRUE(fault == "switchover" || fault == "kill-primary") << fault;
  const Clock::time_point switch_began = Clock::now();
  const auto [switch_status, switch_output] = Cluster(fault, 120s);
  const Clock::time_point switch_ended = Clock::now();
  // Posting goes on after the new primary takes writes: chopar must find it.
  std::this_thread::sleep_for(8s);
  stop = true;
  sender.join();
  ASSERT_EQ(switch_status, 0) << "cluster.sh " << fault << " failed: " << switch_output;
  const auto [second_status, second_primary] = Cluster("primary", 30s);
  ASSERT_EQ(second_status, 0) << second_primary;
  EXPECT_NE(second_primary, first_primary) << "the switchover left the primary where it was";

  // The outage as chopar's callers saw it: the longest gap between two
  // accepted notifications that overlaps the switchover; recovery is from
  // the switchover's start to the acceptance that ends that gap.
  std::vector<Clock::time_point> accepted_at;
  std::set<std::int64_t> accepted_ids;
  int refused = 0;
  std::map<long, int> other_answers;  // status (0: no answer) → how many
  for (const Posted& p : posted) {
    if (p.status / 100 == 2) {
      accepted_at.push_back(p.ended);
      accepted_ids.insert(p.id);
    } else if (p.status == 503) {
      ++refused;
    } else {
      ++other_answers[p.status];
    }
  }
  // A request the switchover caught fails cleanly: 503, retry later.
  for (const auto& [status, n] : other_answers) {
    ADD_FAILURE() << n << " request(s) answered " << status << " (not 2xx or 503)";
  }
  std::sort(accepted_at.begin(), accepted_at.end());
  Clock::duration outage{0};
  std::optional<Clock::time_point> recovered;
  for (std::size_t i = 1; i < accepted_at.size(); ++i) {
    const auto gap = accepted_at[i] - accepted_at[i - 1];
    if (accepted_at[i] > switch_began && accepted_at[i - 1] < switch_ended && gap > outage) {
      outage = gap;
      recovered = accepted_at[i];
    }
  }
  ASSERT_TRUE(recovered.has_value()) << "no notification was accepted after the switchover began";
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  const auto accepted_after = std::count_if(accepted_at.begin(), accepted_at.end(),
                                            [&](auto t) { return t > switch_ended; });
  std::printf(
      "ha %s: cluster.sh %s %s s (%lld ms as timed here); chopar's write outage "
      "%lld ms; first notification accepted %lld ms after the fault began; %zu posted, %zu "
      "accepted (%ld after the new primary took writes), %d refused (503 while no primary "
      "took writes)\n",
      fault.c_str(), fault.c_str(), switch_output.substr(0, switch_output.find('\n')).c_str(),
      static_cast<long long>(ms(switch_ended - switch_began)), static_cast<long long>(ms(outage)),
      static_cast<long long>(ms(*recovered - switch_began)), posted.size(), accepted_ids.size(),
      static_cast<long>(accepted_after), refused);
  EXPECT_GE(accepted_after, 10) << "chopar did not take writes again after the fault";
  // What chopar said of it: the pool's and the LISTEN connection's lines.
  std::istringstream log(serve_->Output());
  for (std::string line; std::getline(log, line);) {
    if (line.find("database pool") != std::string::npos ||
        line.find("database listener") != std::string::npos) {
      std::printf("  chopar: %s\n", line.c_str());
    }
  }
  // LISTEN is on the new primary: the old one's session ended with it.
  EXPECT_NE(serve_->Output().find("database listener: reconnected"), std::string::npos)
      << serve_->Output();
  EXPECT_LT(ms(*recovered - switch_began), 30000) << serve_->Output();

  // Every accepted notification is on the new primary (synchronous
  // replication: a 2xx came after the standby had its commit), and each
  // of its deliveries is sent with exactly one sink message.
  auto conn = db::Connection::Open(url);
  std::set<std::int64_t> stored;
  {
    const auto rows = conn.ExecText("SELECT id FROM chopar.notifications", {});
    for (int r = 0; r < rows.Rows(); ++r) stored.insert(rows.Int(r, 0));
  }
  std::vector<std::int64_t> lost;
  std::set_difference(accepted_ids.begin(), accepted_ids.end(), stored.begin(), stored.end(),
                      std::back_inserter(lost));
  EXPECT_TRUE(lost.empty()) << lost.size() << " accepted notification(s) lost, the first "
                            << lost.front();
  const auto count = [&](const std::string& sql) {
    return db::Connection::Open(url).ExecText(sql, {}).Int(0, 0);
  };
  EXPECT_TRUE(WaitUntil(
      [&] { return count("SELECT count(*) FROM chopar.deliveries WHERE status <> 'sent'") == 0; },
      60s))
      << count("SELECT count(*) FROM chopar.deliveries WHERE status <> 'sent'")
      << " deliveries not sent; " << serve_->Output();
  const std::int64_t deliveries = count("SELECT count(*) FROM chopar.deliveries");
  EXPECT_GE(deliveries, static_cast<std::int64_t>(accepted_ids.size()));
  EXPECT_EQ(count("SELECT count(*) FROM chopar.sink_messages"), deliveries)
      << "a delivery was sent twice or not at all";
  EXPECT_EQ(count("SELECT count(DISTINCT delivery_id) FROM chopar.sink_messages"), deliveries);

  serve_->Signal(SIGTERM);
  EXPECT_EQ(serve_->Wait(30s), 0) << serve_->Output();
  std::printf("ha: checks done %.1f s after the test began\n", seconds_since(test_began));
}

}  // namespace
}  // namespace chopar
