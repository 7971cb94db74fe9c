// The delivery canon of the hub's source document on real PostgreSQL: exactly-once sending,
// the hourly limit, stale addresses, retries, leases, claim tokens, quiet
// hours and shutdown drain.

#include <gtest/gtest.h>

#include <latch>
#include <set>
#include <thread>

#include "core/metrics.hpp"
#include "delivery/claim.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"

namespace chopar::delivery {
namespace {

using channels::Outcome;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::TestChannel;
using testing::TopRandom;

class WorkerTest : public testing::DeliveryPgTest {
 protected:
  Worker MakeWorker(WorkerSettings settings = {}) {
    return Worker(*pool_, ChannelSet::AllTo(channel_), clock_, metrics_, settings, random_);
  }
  double SentTotal(const char* channel) {
    return metrics_
        .GetCounter("chopar_deliveries_total", "", {{"channel", channel}, {"status", "sent"}})
        .Value();
  }

  TestChannel channel_;
  TopRandom random_;
};

TEST_F(WorkerTest, SendsAQueuedDeliveryWithItsAddressAndContent) {
  AddUser(1, "email, locale", "'aziz@example.uz', 'uz'");
  const auto ids = Notify(1, {"email"});
  const double sent_before = SentTotal("email");
  auto worker = MakeWorker();

  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.claimed, 1);
  EXPECT_EQ(stats.sent, 1);
  ASSERT_EQ(channel_.count(), 1u);
  const channels::Message m = channel_.messages()[0];
  EXPECT_EQ(m.delivery_id, ids[0]);
  EXPECT_EQ(m.channel, core::ChannelKind::kEmail);
  EXPECT_EQ(m.email, "aziz@example.uz");
  EXPECT_EQ(m.phone, std::nullopt) << "only the channel's own address is set";
  EXPECT_EQ(m.title, "Task due");
  EXPECT_EQ(m.body, "Pay the bill");
  EXPECT_EQ(m.link, "/tasks/1");
  EXPECT_EQ(m.locale, "uz");
  EXPECT_EQ(m.attempt, 1);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(TimeField(ids[0], "sent_at"), T0());
  EXPECT_EQ(Field(ids[0], "provider_message_id"), "pm-" + std::to_string(ids[0]));
  // The channel's ProviderName(), recorded when its outcome names none.
  EXPECT_EQ(Field(ids[0], "provider"), "test");
  EXPECT_EQ(Field(ids[0], "attempts"), "1");
  EXPECT_EQ(Field(ids[0], "claim_token"), "");
  EXPECT_EQ(Field(ids[0], "lease_until"), "");
  EXPECT_EQ(SentTotal("email"), sent_before + 1);
}

TEST_F(WorkerTest, RunningAgainSendsNothing) {
  AddUser(1);
  Notify(1, {"email"});
  auto worker = MakeWorker();
  ASSERT_EQ(worker.RunOnce().sent, 1);

  const RunStats again = worker.RunOnce();

  EXPECT_EQ(again.claimed, 0);
  EXPECT_EQ(channel_.count(), 1u);
}

TEST_F(WorkerTest, TwoWorkersRacingOnOneDeliverySendItOnce) {
  db::Pool pool_a(db_->url(), 2), pool_b(db_->url(), 2);
  Worker a(pool_a, ChannelSet::AllTo(channel_), clock_, metrics_);
  Worker b(pool_b, ChannelSet::AllTo(channel_), clock_, metrics_);
  constexpr int kRounds = 30;
  for (int round = 0; round < kRounds; ++round) {
    AddUser(round + 1);  // a user each, so the hourly limit plays no part
    const auto ids = Notify(round + 1, {"email"});
    std::latch start(2);
    RunStats stats_a, stats_b;
    std::thread ta([&] {
      start.arrive_and_wait();
      stats_a = a.RunOnce();
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      stats_b = b.RunOnce();
    });
    ta.join();
    tb.join();
    EXPECT_EQ(stats_a.sent + stats_b.sent, 1) << "round " << round;
    EXPECT_EQ(Field(ids[0], "status"), "sent");
  }
  std::set<std::int64_t> distinct;
  for (const auto& m : channel_.messages()) distinct.insert(m.delivery_id);
  EXPECT_EQ(channel_.count(), static_cast<std::size_t>(kRounds))
      << "the sender was called once per delivery";
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kRounds));
}

// A broadcast's deliveries (bulk) wait for the ordinary ones that are due,
// even those due later: a notification created while the workers are behind
// a broadcast's pace is sent first.
TEST_F(WorkerTest, OrdinaryDeliveriesDueAreClaimedBeforeABroadcastsDueEarlier) {
  for (int user = 1; user <= 6; ++user) AddUser(user);
  for (int user = 1; user <= 4; ++user) Notify(user, {"email"});
  Sql("UPDATE deliveries SET bulk = true, next_attempt_at = next_attempt_at - interval '10 "
      "minutes'");
  const std::int64_t first = Notify(5, {"email"})[0];
  const std::int64_t second = Notify(6, {"email"})[0];
  auto worker = MakeWorker(WorkerSettings{.batch = 2});

  ASSERT_EQ(worker.RunOnce().sent, 2);
  EXPECT_EQ(Field(first, "status"), "sent");
  EXPECT_EQ(Field(second, "status"), "sent");
  EXPECT_EQ(CountStatus("queued"), 4);

  EXPECT_EQ(worker.RunOnce().sent, 2);
  EXPECT_EQ(worker.RunOnce().sent, 2);
  EXPECT_EQ(CountStatus("sent"), 6) << "the broadcast's are sent once the ordinary ones are";
}

TEST_F(WorkerTest, HourlyLimitSkipsTheThirdEmailWithTheReason) {
  AddUser(1);
  WorkerSettings settings;
  settings.hourly_limits[core::ChannelKind::kEmail] = 2;
  const auto first = Notify(1, {"email"}), second = Notify(1, {"email"}),
             third = Notify(1, {"email"});
  auto worker = MakeWorker(settings);

  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.sent, 2);
  EXPECT_EQ(stats.skipped, 1);
  EXPECT_EQ(Field(first[0], "status"), "sent");
  EXPECT_EQ(Field(second[0], "status"), "sent");
  EXPECT_EQ(Field(third[0], "status"), "skipped");
  EXPECT_EQ(Field(third[0], "last_error"), "hourly limit 2");
  EXPECT_EQ(channel_.count(), 2u);
}

TEST_F(WorkerTest, HourlyLimitIsASlidingHourPerChannel) {
  AddUser(1, "email, phone", "'u@example.uz', '+998901234567'");
  WorkerSettings settings;  // sms: 3 an hour
  auto worker = MakeWorker(settings);
  for (int i = 0; i < 3; ++i) {
    Notify(1, {"sms"});
    ASSERT_EQ(worker.RunOnce().sent, 1);
    clock_.Advance(minutes(1));
  }
  // 3 minutes after the first: the 4th sms is over the limit, email is not.
  const auto fourth = Notify(1, {"sms", "email"});
  const RunStats stats = worker.RunOnce();
  EXPECT_EQ(Field(fourth[0], "status"), "skipped");
  EXPECT_EQ(Field(fourth[1], "status"), "sent");
  EXPECT_EQ(stats.sent, 1);
  EXPECT_EQ(stats.skipped, 1);

  clock_.Set(T0() + minutes(61));  // the first sms left the window
  const auto later = Notify(1, {"sms"});
  EXPECT_EQ(worker.RunOnce().sent, 1);
  EXPECT_EQ(Field(later[0], "status"), "sent");
}

TEST_F(WorkerTest, TelegramAddressGoneDeactivatesTheConnection) {
  AddUser(1);
  Sql("INSERT INTO telegram_connections (user_id, chat_id) VALUES (1, 4503599627370495)");
  channel_.SetAnswer([](const channels::Message&) {
    return Outcome::AddressGone("403 Forbidden: bot was blocked by the user");
  });
  const auto ids = Notify(1, {"telegram"});
  auto worker = MakeWorker();

  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.failed, 1);
  ASSERT_EQ(channel_.count(), 1u);
  EXPECT_EQ(channel_.messages()[0].telegram_chat_id, 4503599627370495) << "52-bit chat id intact";
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "last_error"), "403 Forbidden: bot was blocked by the user");
  EXPECT_EQ(Scalar("SELECT active::text FROM telegram_connections WHERE user_id = 1"), "false");
  EXPECT_EQ(Count("SELECT count(*) FROM telegram_connections"), 1) << "the row is kept";

  // A delivery queued before the block is not handed to the provider again.
  const auto next = Notify(1, {"telegram"});
  worker.RunOnce();
  EXPECT_EQ(channel_.count(), 1u);
  EXPECT_EQ(Field(next[0], "status"), "failed");
  EXPECT_EQ(Field(next[0], "last_error"), "no active Telegram connection");
}

class PushTest : public WorkerTest {
 protected:
  void SetUp() override {
    WorkerTest::SetUp();
    if (IsSkipped()) return;
    AddUser(1);
    const std::string key(87, 'B'), auth(22, 'A');
    gone_ = Sql("INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth) VALUES "
                "(1, 'https://push.example/gone', '" +
                key + "', '" + auth + "') RETURNING id")
                .Int(0, 0);
    kept_ = Sql("INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth) VALUES "
                "(1, 'https://push.example/kept', '" +
                key + "', '" + auth + "') RETURNING id")
                .Int(0, 0);
  }
  std::int64_t gone_ = 0, kept_ = 0;
};

TEST_F(PushTest, GoneSubscriptionIsDeletedAndTheOtherKept) {
  channel_.SetAnswer([this](const channels::Message&) {
    Outcome outcome = Outcome::AddressGone("410 Gone");
    outcome.gone_push_subscriptions = {gone_};
    return outcome;
  });
  const auto ids = Notify(1, {"push"});
  auto worker = MakeWorker();

  worker.RunOnce();

  ASSERT_EQ(channel_.count(), 1u);
  EXPECT_EQ(channel_.messages()[0].push_targets.size(), 2u) << "every subscription is a target";
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "last_error"), "410 Gone");
  EXPECT_EQ(Scalar("SELECT string_agg(id::text, ',') FROM push_subscriptions"),
            std::to_string(kept_));
}

TEST_F(PushTest, GoneSubscriptionListedOnASentOutcomeIsDeletedToo) {
  channel_.SetAnswer([this](const channels::Message&) {
    Outcome outcome = Outcome::Sent();
    outcome.gone_push_subscriptions = {gone_};
    return outcome;
  });
  const auto ids = Notify(1, {"push"});
  auto worker = MakeWorker();

  worker.RunOnce();

  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(Scalar("SELECT string_agg(id::text, ',') FROM push_subscriptions"),
            std::to_string(kept_));
}

TEST_F(WorkerTest, RetryStaysQueuedWithAReasonThenFailsAfterMaxAttempts) {
  AddUser(1);
  channel_.SetAnswer(
      [](const channels::Message&) { return Outcome::Retry("503 Service Unavailable"); });
  WorkerSettings settings;
  settings.max_attempts = 3;
  settings.backoff.initial = seconds(1);
  const auto ids = Notify(1, {"email"});
  auto worker = MakeWorker(settings);

  EXPECT_EQ(worker.RunOnce().retried, 1);
  EXPECT_EQ(Field(ids[0], "status"), "queued");
  EXPECT_EQ(Field(ids[0], "attempts"), "1");
  EXPECT_EQ(TimeField(ids[0], "next_attempt_at"), T0() + seconds(1)) << "jitter pinned to the top";
  EXPECT_EQ(Field(ids[0], "last_error"),
            "attempt 1 of 3: 503 Service Unavailable; retry at 2026-10-28T09:00:01Z");
  // Not due yet: a second run leaves it alone.
  EXPECT_EQ(worker.RunOnce().claimed, 0);
  // The backlog of queued rows is visible to the queue-depth metric.
  RefreshQueueDepth(*pool_, QueueDepthGauge(metrics_));
  EXPECT_EQ(QueueDepthGauge(metrics_).Value(), 1);

  clock_.Advance(seconds(1));
  EXPECT_EQ(worker.RunOnce().retried, 1);
  EXPECT_EQ(TimeField(ids[0], "next_attempt_at"), T0() + seconds(1 + 2)) << "doubled";

  clock_.Advance(seconds(2));
  EXPECT_EQ(worker.RunOnce().failed, 1);
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "attempts"), "3");
  EXPECT_EQ(Field(ids[0], "last_error"), "gave up after 3 attempts: 503 Service Unavailable");
  EXPECT_EQ(channel_.count(), 3u);
}

TEST_F(WorkerTest, ProviderRetryAfterIsHonoured) {
  AddUser(1);
  channel_.SetAnswer([](const channels::Message&) {
    return Outcome::Retry("429 Too Many Requests", seconds(120));
  });
  const auto ids = Notify(1, {"email"});
  auto worker = MakeWorker();

  worker.RunOnce();

  EXPECT_EQ(Field(ids[0], "status"), "queued");
  EXPECT_EQ(TimeField(ids[0], "next_attempt_at"), T0() + seconds(120));
}

TEST_F(WorkerTest, PermanentFailureIsFinalWithTheReason) {
  AddUser(1);
  channel_.SetAnswer(
      [](const channels::Message&) { return Outcome::Permanent("550 mailbox unavailable"); });
  const auto ids = Notify(1, {"email"});
  auto worker = MakeWorker();

  EXPECT_EQ(worker.RunOnce().failed, 1);
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "last_error"), "550 mailbox unavailable");
  clock_.Advance(std::chrono::hours(2));
  EXPECT_EQ(worker.RunOnce().claimed, 0);
}

TEST_F(WorkerTest, ClaimOfADeadWorkerIsTakenBackAfterItsLease) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  WorkerSettings settings;
  // A worker claims and dies before recording anything.
  const ClaimResult dead = ClaimBatch(*pool_, clock_.Now(), settings, ChannelSet::AllTo(channel_));
  ASSERT_EQ(dead.to_send.size(), 1u);
  EXPECT_EQ(Field(ids[0], "status"), "sending");
  auto worker = MakeWorker(settings);

  EXPECT_EQ(worker.RunOnce().claimed, 0) << "the lease still holds";
  clock_.Advance(settings.lease + seconds(1));
  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.sent, 1);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  EXPECT_EQ(Field(ids[0], "attempts"), "2");
  ASSERT_EQ(channel_.count(), 1u);
  EXPECT_EQ(channel_.messages()[0].attempt, 2);
  EXPECT_EQ(Field(ids[0], "last_error"), "lease expired on attempt 1; taken back");
}

TEST_F(WorkerTest, LeaseLostOnTheLastAttemptFails) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  WorkerSettings settings;
  settings.max_attempts = 1;
  ASSERT_EQ(ClaimBatch(*pool_, clock_.Now(), settings, ChannelSet::AllTo(channel_)).to_send.size(),
            1u);
  clock_.Advance(settings.lease + seconds(1));
  auto worker = MakeWorker(settings);

  EXPECT_EQ(worker.RunOnce().failed, 1);
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "last_error"), "lease expired on attempt 1 of 1; giving up");
  EXPECT_EQ(channel_.count(), 0u);
}

TEST_F(WorkerTest, ExpiredLeaseOfASendThatMayHaveStartedIsNotSentAgain) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  TestChannel slow([](const channels::Message&) { return Outcome::Permanent("late answer"); });
  slow.Block();
  db::Pool pool_a(db_->url(), 2);
  Worker a(pool_a, ChannelSet::AllTo(slow), clock_, metrics_);
  RunStats late;
  std::thread ta([&] { late = a.RunOnce(); });
  ASSERT_TRUE(slow.WaitForEntered(1));

  // Its worker stalls past the lease (or died): the provider may have the
  // message already, and nothing tells a repeat from a new one.
  clock_.Advance(seconds(61));
  auto b = MakeWorker();
  const RunStats taken = b.RunOnce();
  slow.Unblock();
  ta.join();

  EXPECT_EQ(taken.claimed, 1);
  EXPECT_EQ(taken.failed, 1);
  EXPECT_EQ(channel_.count(), 0u) << "handed to a provider a second time";
  EXPECT_EQ(Field(ids[0], "status"), "failed");
  EXPECT_EQ(Field(ids[0], "last_error"),
            "outcome unknown: attempt 1 was handed to the provider and its lease ran out before "
            "the answer was recorded; not sent again, to avoid a duplicate");
  EXPECT_EQ(late.ignored, 1) << "the stalled worker's late answer changes nothing";
  EXPECT_EQ(Field(ids[0], "status"), "failed");
}

class QuietHoursTest : public WorkerTest {
 protected:
  void SetUp() override {
    WorkerTest::SetUp();
    if (IsSkipped()) return;
    AddUser(1, "email, timezone, quiet_start, quiet_end",
            "'u@example.uz', 'Asia/Tashkent', '22:00', '08:00'");
    clock_.Set(*core::ParseRfc3339("2026-10-28T18:30:00Z"));  // 23:30 in Tashkent
  }
};

TEST_F(QuietHoursTest, NonCriticalIsDeferredToTheEndOfTheWindow) {
  const auto ids = Notify(1, {"email"});
  auto worker = MakeWorker();

  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.deferred, 1);
  EXPECT_EQ(channel_.count(), 0u);
  EXPECT_EQ(Field(ids[0], "status"), "queued");
  EXPECT_EQ(Field(ids[0], "attempts"), "0");
  EXPECT_EQ(TimeField(ids[0], "next_attempt_at"), core::ParseRfc3339("2026-10-29T03:00:00Z"));
  EXPECT_EQ(Field(ids[0], "last_error"), "quiet hours until 2026-10-29T03:00:00Z");

  clock_.Set(*core::ParseRfc3339("2026-10-29T02:59:59Z"));
  EXPECT_EQ(worker.RunOnce().claimed, 0);
  clock_.Set(*core::ParseRfc3339("2026-10-29T03:00:00Z"));  // 08:00 in Tashkent
  EXPECT_EQ(worker.RunOnce().sent, 1);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
}

TEST_F(QuietHoursTest, CriticalIsNotDeferred) {
  const auto ids = Notify(1, {"email"}, /*critical=*/true);
  auto worker = MakeWorker();

  EXPECT_EQ(worker.RunOnce().sent, 1);
  EXPECT_EQ(Field(ids[0], "status"), "sent");
  ASSERT_EQ(channel_.count(), 1u);
  EXPECT_TRUE(channel_.messages()[0].critical);
}

TEST_F(WorkerTest, ChannelExceptionBecomesARetry) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  channel_.SetAnswer(
      [](const channels::Message&) -> Outcome { throw std::runtime_error("socket closed"); });
  auto worker = MakeWorker();

  EXPECT_EQ(worker.RunOnce().retried, 1);
  EXPECT_EQ(Field(ids[0], "status"), "queued");
  EXPECT_NE(Field(ids[0], "last_error").find("channel error: socket closed"), std::string::npos);
}

TEST_F(WorkerTest, StopLetsAnInFlightSendFinish) {
  AddUser(1);
  const auto ids = Notify(1, {"email"});
  channel_.Block();
  WorkerSettings settings;
  settings.concurrency = 1;
  auto worker = MakeWorker(settings);
  worker.Start();
  ASSERT_TRUE(channel_.WaitForEntered(1));

  std::thread stopper([&] { worker.Stop(std::chrono::seconds(30)); });
  channel_.Unblock();
  stopper.join();

  EXPECT_EQ(Field(ids[0], "status"), "sent");
}

TEST_F(WorkerTest, LoopSurvivesLostDatabaseConnections) {
  AddUser(1);
  Notify(1, {"email"});
  WorkerSettings settings;
  settings.concurrency = 2;
  auto worker = MakeWorker(settings);
  worker.Start();
  ASSERT_TRUE(channel_.WaitForEntered(1));

  // Every connection of the worker (pool and listener) is killed.
  Sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid()");
  const auto ids = Notify(1, {"email"});
  Sql("NOTIFY chopar_deliveries");

  EXPECT_TRUE(channel_.WaitForEntered(2));
  worker.Stop(std::chrono::seconds(30));
  EXPECT_EQ(Field(ids[0], "status"), "sent");
}

TEST_F(WorkerTest, IdleLoopWakesOnNotify) {
  AddUser(1);
  WorkerSettings settings;
  settings.concurrency = 1;
  settings.poll_interval = seconds(600);  // only the NOTIFY can wake it within the test
  auto worker = MakeWorker(settings);
  worker.Start();
  // Idle: the listener is connected and the loop's first claim is over (it
  // found nothing and asked, in its last round trip, when work is next due;
  // the round trip ends with a COMMIT), so only the NOTIFY can make it claim
  // the row added below.
  ASSERT_TRUE(WaitUntil([&] {
    return Count(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
               "AND state = 'idle' AND query LIKE 'LISTEN%'") == 1 &&
           Count(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
               "AND state = 'idle' AND query = 'COMMIT'") == 1;
  }));
  const auto ids = Notify(1, {"email"});
  Sql("NOTIFY chopar_deliveries");

  EXPECT_TRUE(channel_.WaitForEntered(1));
  worker.Stop(std::chrono::seconds(30));
  EXPECT_EQ(Field(ids[0], "status"), "sent");
}

}  // namespace
}  // namespace chopar::delivery
