// The database crashes and comes back (pg_ctl stop/restart -m immediate on
// the test server) while chopar is in the middle of its work: the pool
// reconnects every connection, a send's outcome is recorded after the
// outage, the lease of a send in progress outlives the restart, and no
// lease is taken back within one lease of the server's start.

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/errors.hpp"
#include "db/pool.hpp"
#include "delivery/claim.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"
#include "testing/test_database.hpp"
#include "testing/test_server.hpp"

namespace chopar {
namespace {

using delivery::ChannelSet;
using delivery::RunStats;
using delivery::Worker;
using delivery::WorkerSettings;
using delivery::testing::TestChannel;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::TestServer;

class RestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::TestDatabase::Available() || !TestServer::Available()) {
      GTEST_SKIP() << "needs scripts/with-test-pg (CHOPAR_TEST_PG_DATA and friends)";
    }
    db_ = std::make_unique<testing::TestDatabase>();
    TestServer::KeepCommitsThroughCrashes(db_->url());
  }
  void TearDown() override {
    // A test that failed half-way must not leave the server down for the next.
    if (down_) TestServer::Start();
  }
  void Crash() {
    TestServer::Crash();
    down_ = true;
  }
  void Start() {
    TestServer::Start();
    down_ = false;
  }

  // A user with an email address and one email delivery due now; its id.
  std::int64_t QueueEmail() {
    db_->Scalar("INSERT INTO chopar.users (id, email) VALUES (1, 'u@example.uz')");
    db_->Scalar(
        "INSERT INTO chopar.notifications (user_id, type, title) VALUES (1, 'task.due', 'Pay')");
    return std::stoll(db_->Scalar(
        "INSERT INTO chopar.deliveries (notification_id, user_id, channel, next_attempt_at) "
        "SELECT id, 1, 'email', now() FROM chopar.notifications RETURNING id"));
  }
  std::string Status(std::int64_t delivery) {
    return db_->Scalar("SELECT status FROM chopar.deliveries WHERE id = " +
                       std::to_string(delivery));
  }

  std::unique_ptr<testing::TestDatabase> db_;
  core::SystemClock real_;
  core::MetricsRegistry metrics_;
  bool down_ = false;
};

TEST_F(RestartTest, PoolReconnectsAllItsConnectionsAfterARestart) {
  db::Pool pool(db_->url(), 4);
  {
    std::vector<db::PooledConnection> held;
    for (int i = 0; i < 4; ++i) held.push_back(pool.Acquire());
    for (auto& conn : held) conn->ExecText("SELECT 1", {});
  }

  TestServer::CrashAndRestart();

  std::vector<db::Transaction> open;
  for (int i = 0; i < 4; ++i) {
    ASSERT_NO_THROW(open.push_back(pool.Begin("after_restart"))) << "transaction " << i;
    EXPECT_EQ(open.back().ExecText("SELECT 1").Int(0, 0), 1);
  }
}

TEST_F(RestartTest, OutcomeOfASendIsRecordedAfterADatabaseOutage) {
  const std::int64_t id = QueueEmail();
  db::Pool pool(db_->url(), 4);
  TestChannel slow;
  slow.Block();
  WorkerSettings settings;
  settings.lease = seconds(30);
  Worker worker(pool, ChannelSet::AllTo(slow), real_, metrics_, settings);
  auto running = std::async(std::launch::async, [&] { return worker.RunOnce(); });
  ASSERT_TRUE(slow.WaitForEntered(1));

  // The provider answers while the database is down, and stays down for
  // a while: every try to record the answer fails until it is back.
  Crash();
  slow.Unblock();
  std::this_thread::sleep_for(seconds(3));
  Start();

  RunStats stats;
  ASSERT_NO_THROW(stats = running.get()) << "the outcome was dropped";
  EXPECT_EQ(stats.sent, 1);
  EXPECT_EQ(Status(id), "sent");
  EXPECT_EQ(slow.count(), 1u);
}

TEST_F(RestartTest, LeaseOfASendInProgressOutlivesARestart) {
  const std::int64_t id = QueueEmail();
  db::Pool pool(db_->url(), 4);
  TestChannel slow;
  slow.Block();
  WorkerSettings settings;
  settings.lease = seconds(3);  // renewed every second
  settings.concurrency = 1;
  Worker sender(pool, ChannelSet::AllTo(slow), real_, metrics_, settings);
  sender.Start();
  ASSERT_TRUE(slow.WaitForEntered(1));

  TestServer::CrashAndRestart();

  // Two leases long after the restart, another worker finds nothing to take.
  db::Pool other_pool(db_->url(), 2);
  TestChannel other_channel;
  Worker other(other_pool, ChannelSet::AllTo(other_channel), real_, metrics_, settings);
  int taken = 0;
  const auto until = std::chrono::steady_clock::now() + seconds(6);
  while (std::chrono::steady_clock::now() < until) {
    try {
      taken += other.RunOnce().claimed;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the database is back, yet: " << e.what();
    }
    std::this_thread::sleep_for(milliseconds(100));
  }
  slow.Unblock();
  sender.Stop(seconds(30));

  EXPECT_EQ(taken, 0) << "the send's claim was taken back after the restart";
  EXPECT_EQ(other_channel.count(), 0u);
  EXPECT_EQ(Status(id), "sent");
}

// The whole cluster was down while a lease ran out: its holder gets one
// lease after the server's start to renew it (its heartbeat reconnects)
// before anyone may take the rows back.
TEST_F(RestartTest, NoLeaseIsTakenBackWithinOneLeaseOfTheServersStart) {
  const std::int64_t id = QueueEmail();
  db::Pool pool(db_->url(), 2);
  TestChannel channel;
  const ChannelSet channels = ChannelSet::AllTo(channel);
  WorkerSettings settings;
  settings.lease = seconds(5);
  ASSERT_EQ(delivery::ClaimBatch(pool, std::nullopt, settings, channels).to_send.size(), 1u);

  TestServer::CrashAndRestart();
  // By the time the server is back, the lease has run out.
  db_->Scalar("UPDATE chopar.deliveries SET lease_until = now() - interval '1 second' WHERE id = " +
              std::to_string(id));
  ASSERT_EQ(db_->Scalar("SELECT now() < pg_postmaster_start_time() + interval '4 seconds'"), "t")
      << "the restart took too long for this test";
  EXPECT_EQ(delivery::ClaimBatch(pool, std::nullopt, settings, channels).locked, 0)
      << "a lease was taken back right after the server started";

  // One lease after the start, it may be.
  const auto give_up = std::chrono::steady_clock::now() + seconds(20);
  while (db_->Scalar("SELECT now() >= pg_postmaster_start_time() + interval '5 seconds'") != "t") {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up);
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(delivery::ClaimBatch(pool, std::nullopt, settings, channels).to_send.size(), 1u);
}

}  // namespace
}  // namespace chopar
