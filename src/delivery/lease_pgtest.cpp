// Leases on real PostgreSQL and real time: a lease covers what is being sent
// now (renewed while a send outlasts it, re-checked before each channel's
// batch starts), a send that may have started is never repeated blindly,
// shutdown never releases a send in progress, outcomes are recorded on the
// worker's own connections, and ownership follows the database's clock, not
// the host's.

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "core/clock.hpp"
#include "delivery/claim.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::TestChannel;

// The real time, shifted: the clock of a host that runs ahead or behind.
class SkewedClock final : public core::Clock {
 public:
  explicit SkewedClock(std::chrono::system_clock::duration skew) : skew_(skew) {}
  [[nodiscard]] core::TimePoint Now() const override {
    return std::chrono::system_clock::now() + skew_;
  }

 private:
  std::chrono::system_clock::duration skew_;
};

class LeaseTest : public testing::DeliveryPgTest {
 protected:
  // A worker of "another host": its own pool, the real time.
  std::unique_ptr<Worker> OtherWorker(ChannelSet channels, const core::Clock& clock,
                                      WorkerSettings settings = {}) {
    pools_.push_back(std::make_unique<db::Pool>(db_->url(), 2));
    return std::make_unique<Worker>(*pools_.back(), channels, clock, metrics_, settings);
  }
  // Runs `worker`'s steps until `until` passes; returns what they claimed.
  static int ClaimFor(Worker& worker, milliseconds until) {
    int claimed = 0;
    const auto deadline = std::chrono::steady_clock::now() + until;
    while (std::chrono::steady_clock::now() < deadline) {
      claimed += worker.RunOnce().claimed;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return claimed;
  }

  core::SystemClock real_;
  std::vector<std::unique_ptr<db::Pool>> pools_;
};

TEST_F(LeaseTest, SendThatOutlastsItsLeaseKeepsItWhileItRuns) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  WorkerSettings settings;
  settings.lease = seconds(1);
  settings.concurrency = 1;
  TestChannel slow;
  slow.Block();
  auto sender = OtherWorker(ChannelSet::AllTo(slow), real_, settings);
  sender->Start();
  ASSERT_TRUE(slow.WaitForEntered(1));

  // Three leases long, another worker keeps looking for work.
  TestChannel fast;
  auto other = OtherWorker(ChannelSet::AllTo(fast), real_, settings);
  EXPECT_EQ(ClaimFor(*other, milliseconds(3000)), 0) << "the live send's claim was taken back";
  slow.Unblock();
  sender->Stop(seconds(30));

  EXPECT_EQ(fast.count(), 0u);
  EXPECT_EQ(slow.count(), 1u);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(Field(ids[0], "attempts"), "1");
}

TEST_F(LeaseTest, RowsWaitingForTheirChannelAreNotSentOnceAnotherWorkerTookThemBack) {
  AddUser(1);
  Sql("INSERT INTO telegram_connections (user_id, chat_id) VALUES (1, 42)");
  const auto ids = Notify(1, {"email", "telegram"});
  WorkerSettings settings;
  settings.lease = seconds(1);
  TestChannel slow_email;
  slow_email.Block();
  TestChannel telegram;
  auto first = OtherWorker(ChannelSet(slow_email, telegram, telegram, telegram), real_, settings);
  auto running = std::async(std::launch::async, [&] { return first->RunOnce(); });
  ASSERT_TRUE(slow_email.WaitForEntered(1));

  // The Telegram row waits while the email batch sends, past its lease: it
  // is not being sent, so another worker may take it and send it.
  std::this_thread::sleep_for(milliseconds(1500));
  TestChannel other_email;
  auto second = OtherWorker(ChannelSet(other_email, telegram, telegram, telegram), real_, settings);
  EXPECT_EQ(second->RunOnce().sent, 1);
  EXPECT_EQ(telegram.count(), 1u);

  slow_email.Unblock();
  const RunStats stats = running.get();
  EXPECT_EQ(telegram.count(), 1u) << "the first worker sent the row it had lost";
  EXPECT_EQ(other_email.count(), 0u);
  EXPECT_EQ(stats.sent, 1);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(Field(ids[1], "status"), "sent");
  EXPECT_EQ(Field(ids[1], "attempts"), "2");
}

TEST_F(LeaseTest, HostClockRunningAheadDoesNotTakeBackLiveClaims) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  WorkerSettings settings;
  settings.concurrency = 1;
  TestChannel slow;
  slow.Block();
  auto sender = OtherWorker(ChannelSet::AllTo(slow), real_, settings);
  sender->Start();
  ASSERT_TRUE(slow.WaitForEntered(1));

  // A host two hours ahead: by its clock every lease ran out long ago.
  SkewedClock ahead(hours(2));
  TestChannel fast;
  auto other = OtherWorker(ChannelSet::AllTo(fast), ahead, settings);
  EXPECT_EQ(other->RunOnce().claimed, 0);
  slow.Unblock();
  sender->Stop(seconds(30));

  EXPECT_EQ(fast.count(), 0u);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
}

TEST_F(LeaseTest, HostClockRunningAheadKeepsTheHourlyLimit) {
  AddUser(1);
  WorkerSettings settings;
  settings.hourly_limits[core::ChannelKind::kEmail] = 1;
  TestChannel channel;
  auto worker = OtherWorker(ChannelSet::AllTo(channel), real_, settings);
  Notify(1, {"email"});
  ASSERT_EQ(worker->RunOnce().sent, 1);

  SkewedClock ahead(hours(2));
  auto skewed = OtherWorker(ChannelSet::AllTo(channel), ahead, settings);
  const auto second = Notify(1, {"email"});
  EXPECT_EQ(skewed->RunOnce().skipped, 1);
  EXPECT_EQ(channel.count(), 1u);
  EXPECT_EQ(Field(second[0], "status"), "skipped");
}

TEST_F(LeaseTest, StopNeverReleasesAClaimWhoseSendIsRunning) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  TestChannel slow;
  slow.Block();
  WorkerSettings settings;
  settings.concurrency = 1;
  {
    auto worker = OtherWorker(ChannelSet::AllTo(slow), real_, settings);
    worker->Start();
    ASSERT_TRUE(slow.WaitForEntered(1));

    worker->Stop(milliseconds(100));

    // Released now, another instance would send it while this one still is.
    EXPECT_EQ(Field(ids[0], "status"), "sending");
    EXPECT_NE(Field(ids[0], "claim_token"), "");
    slow.Unblock();  // the send returns; the destructor waits for its outcome
  }
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(slow.count(), 1u);
}

TEST_F(LeaseTest, StopReleasesTheRowsNotYetHandedToTheirChannel) {
  AddUser(1);
  Sql("INSERT INTO telegram_connections (user_id, chat_id) VALUES (1, 42)");
  const auto ids = Notify(1, {"email", "telegram"});
  TestChannel slow_email;
  slow_email.Block();
  TestChannel telegram;
  WorkerSettings settings;
  settings.concurrency = 1;
  {
    auto worker =
        OtherWorker(ChannelSet(slow_email, telegram, telegram, telegram), real_, settings);
    worker->Start();
    ASSERT_TRUE(slow_email.WaitForEntered(1));

    worker->Stop(milliseconds(100));

    EXPECT_EQ(Field(ids[0], "status"), "sending") << "email: its send is running";
    EXPECT_EQ(Field(ids[1], "status"), "queued") << "telegram: never handed over, free to go";
    slow_email.Unblock();
  }
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(Field(ids[1], "status"), "queued");
  EXPECT_EQ(telegram.count(), 0u) << "the stopping worker does not start the next channel";
}

TEST_F(LeaseTest, OutcomeIsRecordedWhileEverySharedConnectionIsTaken) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  // The pool the HTTP handlers share with the claims, taken to the last
  // connection by slow requests while the send is on the wire.
  db::Pool shared(db_->url(), 2, milliseconds(300));
  TestChannel slow;
  slow.Block();
  WorkerSettings settings;
  Worker worker(shared, ChannelSet::AllTo(slow), real_, metrics_, settings);
  auto running = std::async(std::launch::async, [&] { return worker.RunOnce(); });
  ASSERT_TRUE(slow.WaitForEntered(1));
  auto held_a = shared.Acquire();
  auto held_b = shared.Acquire();

  slow.Unblock();
  const RunStats stats = running.get();

  EXPECT_EQ(stats.sent, 1);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
}

}  // namespace
}  // namespace chopar::delivery
