// db::Listener, db::ListenHub and the LISTEN wake-up of db::BackgroundLoop
// against a real PostgreSQL: NOTIFYs arrive, and keep arriving after the
// listening connection is killed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "db/background_loop.hpp"
#include "db/listen_hub.hpp"
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
  void Notify(const std::string& payload, const std::string& channel = kChannel) {
    db_->Scalar("SELECT pg_notify('" + channel + "', '" + payload + "')");
  }
  std::int64_t ListeningSessions() {
    return db_->Count(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND query LIKE 'LISTEN%'");
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
  bool Has(const std::string& payload) {
    std::lock_guard lock(mutex_);
    return std::find(payloads_.begin(), payloads_.end(), payload) != payloads_.end();
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

TEST_F(LoopListenTest, AHubServesEveryChannelOnOneSessionAndEachSubscriberOnlyItsOwn) {
  auto hub = std::make_shared<ListenHub>(db_->url());
  std::atomic<int> listening_a{0}, listening_b{0};
  Received a, b;
  auto subscription_a = hub->Subscribe(
      kChannel, [&] { ++listening_a; }, [&](const auto& notifications) { a.Add(notifications); });
  auto subscription_b = hub->Subscribe(
      "chopar_test_other", [&] { ++listening_b; },
      [&](const auto& notifications) { b.Add(notifications); });
  ASSERT_TRUE(WaitUntil(
      [&] { return subscription_a->connections() == 1 && subscription_b->connections() == 1; },
      kPatience));
  EXPECT_EQ(listening_a, 1);
  EXPECT_EQ(listening_b, 1);
  EXPECT_EQ(ListeningSessions(), 1);

  Notify("for a");
  Notify("for b", "chopar_test_other");
  ASSERT_TRUE(a.WaitFor("for a"));
  ASSERT_TRUE(b.WaitFor("for b"));
  // NOTIFYs arrive in order: b's came after a's, so a's went out before.
  EXPECT_FALSE(a.Has("for b"));
  EXPECT_FALSE(b.Has("for a"));

  // One session killed: both subscribers are told of the next LISTEN.
  KillListeningConnection();
  ASSERT_TRUE(WaitUntil(
      [&] { return subscription_a->connections() == 2 && subscription_b->connections() == 2; },
      kPatience));
  EXPECT_EQ(listening_a, 2);
  EXPECT_EQ(listening_b, 2);
  Notify("again", "chopar_test_other");
  EXPECT_TRUE(b.WaitFor("again"));
}

TEST_F(LoopListenTest, ACancelledSubscriptionHearsNothingMore) {
  auto hub = std::make_shared<ListenHub>(db_->url());
  Received a, b;
  auto subscription_a = hub->Subscribe(
      kChannel, [] {}, [&](const auto& notifications) { a.Add(notifications); });
  auto subscription_b = hub->Subscribe(
      "chopar_test_other", [] {}, [&](const auto& notifications) { b.Add(notifications); });
  ASSERT_TRUE(WaitUntil(
      [&] { return subscription_a->connections() == 1 && subscription_b->connections() == 1; },
      kPatience));
  subscription_a->Cancel();
  Notify("after cancel");
  Notify("marker", "chopar_test_other");
  ASSERT_TRUE(b.WaitFor("marker"));
  EXPECT_FALSE(a.Has("after cancel"));
}

TEST_F(LoopListenTest, LoopsOnOneDatabaseShareOneListeningSession) {
  core::MetricsRegistry metrics;
  StepLog first_steps, second_steps;
  BackgroundLoopSettings first, second;
  first.name = "first";
  first.listen = ListenOn{db_->url(), kChannel};
  second.name = "second";
  second.listen = ListenOn{db_->url(), "chopar_test_other"};
  BackgroundLoop first_loop(first, first_steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  BackgroundLoop second_loop(second, second_steps.Recording(Next::SleepUpTo(kLongSleep)), metrics);
  first_loop.Start();
  second_loop.Start();
  ASSERT_TRUE(WaitUntil(
      [&] {
        return first_loop.listener_connections() == 1 && second_loop.listener_connections() == 1;
      },
      kPatience));
  EXPECT_EQ(ListeningSessions(), 1);
  const int before = second_steps.Count();
  Notify("", "chopar_test_other");
  EXPECT_TRUE(second_steps.WaitFor(before + 1));
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
