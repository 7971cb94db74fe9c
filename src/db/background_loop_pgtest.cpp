// db::Listener and the LISTEN wake-up of db::BackgroundLoop against a real
// PostgreSQL: NOTIFYs arrive, and keep arriving after the listening
// connection is killed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "db/background_loop.hpp"
#include "db/listener.hpp"
#include "db/loop_test_support.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

using chopar::testing::WaitUntil;
using testing::kLongSleep;
using testing::kPatience;
using testing::LoopCounter;
using testing::StepLog;

constexpr const char* kChannel = "chopar_test_wake";

class LoopListenTest : public chopar::testing::PgTest {
 protected:
  void Notify(const std::string& payload) {
    db_->Scalar("SELECT pg_notify('" + std::string(kChannel) + "', '" + payload + "')");
  }
  // Terminates the one backend of this database that is LISTENing.
  void KillListeningConnection() {
    ASSERT_EQ(db_->Count("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND query LIKE 'LISTEN%'"),
              1);
  }
};

// Payloads as a Listener hands them over. Thread-safe.
class Received {
 public:
  void Add(const std::vector<Notification>& notifications) {
    std::lock_guard lock(mutex_);
    for (const auto& n : notifications) payloads_.push_back(n.payload);
    cv_.notify_all();
  }
  bool WaitFor(const std::string& payload) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, kPatience, [&] {
      return std::find(payloads_.begin(), payloads_.end(), payload) != payloads_.end();
    });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> payloads_;
};

TEST_F(LoopListenTest, ListenerHandsOverPayloadsAndListensAgainAfterItsConnectionIsKilled) {
  ListenerSettings settings;
  settings.conninfo = db_->url();
  settings.channel = kChannel;
  settings.name = "test listener";
  std::atomic<int> listening{0};
  Received received;
  Listener listener(
      settings, [&] { ++listening; },
      [&](const std::vector<Notification>& notifications) { received.Add(notifications); });
  listener.Start();
  ASSERT_TRUE(WaitUntil([&] { return listener.connections() == 1; }, kPatience));
  EXPECT_EQ(listening, 1);

  Notify("first");
  ASSERT_TRUE(received.WaitFor("first"));

  KillListeningConnection();
  ASSERT_TRUE(WaitUntil([&] { return listener.connections() == 2; }, kPatience));
  EXPECT_EQ(listening, 2) << "every (re)connection is announced before it is counted";
  Notify("second");
  EXPECT_TRUE(received.WaitFor("second"));
  listener.Stop();
}

class BackgroundLoopListenTest : public LoopListenTest {
 protected:
  BackgroundLoopSettings Settings() const {
    BackgroundLoopSettings settings;
    settings.name = "test";
    settings.listen = ListenOn{db_->url(), kChannel};
    return settings;
  }
  // Listening, and asleep with no wake-up pending: only a new wake-up (or
  // the timer, kLongSleep away) can make it step again.
  static bool Idle(const BackgroundLoop& loop, std::uint64_t connections) {
    return WaitUntil(
        [&] { return loop.listener_connections() >= connections && loop.Sleeping() == 1; },
        kPatience);
  }
};

TEST_F(BackgroundLoopListenTest, NotifyWakesASleepingLoopLongBeforeItsPoll) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoop loop(Settings(), steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(Idle(loop, 1));
  const int before = steps.Count();
  const double notified = LoopCounter(metrics, "chopar_loop_wakeups_total", "notify");

  Notify("");

  EXPECT_TRUE(steps.WaitFor(before + 1));
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "notify"), notified + 1);
  EXPECT_EQ(LoopCounter(metrics, "chopar_loop_wakeups_total", "timer"), 0);
}

TEST_F(BackgroundLoopListenTest, ReconnectingWakesTheLoopAndLaterNotifiesStillDo) {
  core::MetricsRegistry metrics;
  StepLog steps;
  BackgroundLoop loop(Settings(), steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  loop.Start();
  ASSERT_TRUE(Idle(loop, 1));
  const int before_kill = steps.Count();

  KillListeningConnection();

  // Whatever was sent while nobody listened is looked for at once.
  ASSERT_TRUE(WaitUntil([&] { return loop.listener_connections() == 2; }, kPatience));
  ASSERT_TRUE(steps.WaitFor(before_kill + 1));
  ASSERT_TRUE(Idle(loop, 2));
  const int before_notify = steps.Count();
  Notify("");
  EXPECT_TRUE(steps.WaitFor(before_notify + 1));
}

}  // namespace
}  // namespace chopar::db
