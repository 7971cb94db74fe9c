// The database crashes and comes back (pg_ctl stop/restart -m immediate on
// the test server) while chopar is in the middle of its work: the pool
// reconnects every connection, a send's outcome is recorded after the
// outage, the lease of a send in progress outlives the restart, no lease is
// taken back within one lease of the server's start, the outbox relay
// brings every event to its webhook (once each by event id), the report
// runner sends each period once per recipient, the digest closer queues
// exactly one delivery per window and channel, the releaser makes each
// delayed notification exactly once, and a broadcast's fan-out gives each
// recipient exactly one notification.

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "broadcast/fan_out.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/errors.hpp"
#include "db/pool.hpp"
#include "delivery/claim.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"
#include "fault_support.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_erasure.hpp"
#include "net/http_client.hpp"
#include "outbox/relay.hpp"
#include "outbox/test_support.hpp"
#include "outbox/webhook_target.hpp"
#include "reports/pgtest_fixture.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/hot_standby.hpp"
#include "testing/one_template.hpp"
#include "testing/test_database.hpp"
#include "testing/test_server.hpp"
#include "workflow/engine/digest_closer.hpp"
#include "workflow/engine/releaser.hpp"
#include "workflow/engine/snooze_returner.hpp"
#include "workflow/engine/step_advancer.hpp"

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
  std::int64_t Count(const std::string& sql) { return std::stoll(db_->Scalar(sql)); }
  // Polls `sql` (a count) until it is 0; false after `limit`.
  bool WaitForZero(const std::string& sql, seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      try {
        if (Count(sql) == 0) return true;
      } catch (const std::exception&) {  // still restarting
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    return false;
  }
  // Users 1..`count`, each with an email address.
  void MakeUsers(int count) {
    db_->Scalar(
        "INSERT INTO chopar.users (id, email) SELECT g, 'u' || g || '@example.uz' "
        "FROM generate_series(1, " +
        std::to_string(count) + ") g");
  }
  // Crashes the server (and brings it back) once `started` counts some work
  // done while `remaining` still counts some left, so the crash lands in the
  // middle of it; then waits until `remaining` is 0. False when that takes
  // longer than `limit`.
  bool CrashWhileWorking(const std::string& started, const std::string& remaining, seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (Count(started) == 0) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(milliseconds(1));
    }
    EXPECT_GT(Count(remaining), 0) << "finished before the crash: the test proves nothing";
    TestServer::CrashAndRestart();
    return WaitForZero(remaining, limit);
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

// A failover: the promoted standby's postmaster started long before it took
// writes, so its start says nothing of the outage. The holder still gets
// one lease after the promotion (as chopar first saw it) to renew.
TEST_F(RestartTest, NoLeaseIsTakenBackWithinOneLeaseOfAPromotion) {
  if (!testing::HotStandby::Available()) GTEST_SKIP() << "needs pg_basebackup";
  const std::int64_t id = QueueEmail();
  TestChannel channel;
  const ChannelSet channels = ChannelSet::AllTo(channel);
  WorkerSettings settings;
  settings.lease = seconds(3);
  {
    db::Pool pool(db_->url(), 2);
    ASSERT_EQ(delivery::ClaimBatch(pool, std::nullopt, settings, channels).to_send.size(), 1u);
  }
  // The lease runs out while no server takes writes.
  db_->Scalar("UPDATE chopar.deliveries SET lease_until = now() - interval '1 second' WHERE id = " +
              std::to_string(id));
  testing::HotStandby standby;
  standby.CatchUpWith(db_->url());
  // The standby has run for longer than a lease when it is promoted.
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        return standby.Scalar(db_->url(),
                              "SELECT now() >= pg_postmaster_start_time() + "
                              "interval '4 seconds'") == "t";
      },
      seconds(20)));
  standby.Promote();
  db::Pool promoted(standby.UrlOf(db_->url()), 2);
  EXPECT_EQ(delivery::ClaimBatch(promoted, std::nullopt, settings, channels).locked, 0)
      << "a lease was taken back right after the promotion";

  // One lease after the promotion, it may be.
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        return standby.Scalar(db_->url(),
                              "SELECT now() >= chopar.primary_since() + "
                              "interval '3 seconds'") == "t";
      },
      seconds(20)));
  EXPECT_EQ(delivery::ClaimBatch(promoted, std::nullopt, settings, channels).to_send.size(), 1u);
  // The promotion started timeline 2, noted by that first claim.
  EXPECT_EQ(standby.Scalar(db_->url(),
                           "SELECT string_agg(timeline::text, ',' ORDER BY timeline) "
                           "FROM chopar.server_timelines"),
            "1,2");
}

// The relay is at least once (docs/outbox.md): a batch whose transaction
// the crash rolled back is published again, with the same webhook-id, and
// receivers deduplicate on it. What must hold: every event reaches the
// webhook, nothing else does, and the repeats are at most the one batch the
// crash interrupted.
TEST_F(RestartTest, OutboxRelayBringsEveryEventToItsWebhookOnceByIdAcrossARestart) {
  constexpr int kEvents = 200;
  constexpr int kBatch = 10;
  db::Pool pool(db_->url(), 4);
  const std::vector<std::string> ids = outbox::testing::EmitMany(pool, kEvents);
  testing::FakeHttpServer webhook([](const testing::FakeHttpServer::Request&) {
    testing::FakeHttpServer::Response ok;
    ok.delay = milliseconds(20);  // a batch is on its way most of the time
    return ok;
  });
  net::HttpClient http;
  outbox::TargetSettings target;
  target.kind = "webhook";
  target.name = "webhook";
  target.url = webhook.url() + "/events";
  target.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  outbox::WebhookTarget publisher(target, http, real_);
  outbox::RelaySettings settings = outbox::testing::TestRelaySettings(kBatch);
  settings.poll_interval = milliseconds(100);
  outbox::Relay relay(pool, "chopar", {{"webhook", outbox::TypePatterns(), &publisher}}, settings,
                      real_, metrics_);
  relay.Start();
  const auto until = std::chrono::steady_clock::now() + seconds(20);
  while (webhook.request_count() < kEvents / 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  ASSERT_LT(webhook.request_count(), static_cast<std::size_t>(kEvents))
      << "relayed before the crash";

  TestServer::CrashAndRestart();

  EXPECT_TRUE(
      WaitForZero("SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL", seconds(60)));
  relay.Stop();
  std::map<std::string, int> received;  // webhook-id → requests
  for (const auto& request : webhook.requests()) ++received[request.headers.at("webhook-id")];
  int repeats = 0;
  for (const std::string& id : ids) {
    const auto found = received.find(id);
    EXPECT_NE(found, received.end()) << "event " << id << " never reached the webhook";
    if (found != received.end()) repeats += found->second - 1;
  }
  EXPECT_EQ(received.size(), ids.size()) << "the webhook got events that were not emitted";
  EXPECT_LE(repeats, kBatch) << "more repeats than the one batch the crash interrupted";
}

// A report period is sent to each recipient once, even when the server
// crashes while the run is being written: the run and its notifications
// commit together or not at all, and a run rolled back is made again.
TEST_F(RestartTest, ReportPeriodIsSentOncePerRecipientWhenTheServerCrashesDuringTheRun) {
  for (const char* user : {"1", "2"}) {
    db_->Scalar(std::string("INSERT INTO chopar.users (id, admin, email) VALUES (") + user +
                ", true, 'u" + user + "@example.uz')");
  }
  std::future<void> crash;
  reports::testing::ScriptedSource source(
      [&](const reports::ReportJob& job, const reports::ReportPeriod& period) {
        // The first run's content is ready: the server goes down while the run
        // and its notifications are being written.
        if (!crash.valid())
          crash = std::async(std::launch::async, [] { TestServer::CrashAndRestart(); });
        return reports::testing::ScriptedSource::DefaultAnswer(job, period);
      });
  core::SimulatedClock monday{reports::testing::Tashkent(2026, 8, 17, 9)};
  db::Pool first_pool(db_->url(), 4), second_pool(db_->url(), 4);
  core::MetricsRegistry first_metrics, second_metrics;
  reports::Runner first(first_pool, reports::testing::DocumentJobs(), source, monday,
                        first_metrics);
  reports::Runner second(second_pool, reports::testing::DocumentJobs(), source, monday,
                         second_metrics);

  // Both instances tick until the crash is over and the period is reported.
  const auto until = std::chrono::steady_clock::now() + seconds(30);
  bool reported = false;
  while (!reported && std::chrono::steady_clock::now() < until) {
    for (reports::Runner* runner : {&first, &second}) {
      try {
        (void)runner->RunOnce();
      } catch (const std::exception&) {  // the server is down or restarting
      }
    }
    try {
      reported = crash.valid() && crash.wait_for(seconds(0)) == std::future_status::ready &&
                 Count("SELECT count(*) FROM chopar.report_runs") > 0;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  ASSERT_TRUE(reported) << "the period was never reported";
  crash.get();
  // Later ticks of either instance find it reported.
  EXPECT_FALSE(first.RunOnce().sent);
  EXPECT_FALSE(second.RunOnce().sent);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.report_runs"), 1);
  for (const char* user : {"1", "2"}) {
    EXPECT_EQ(Count(std::string("SELECT count(*) FROM chopar.notifications WHERE type LIKE "
                                "'report.%' AND user_id = ") +
                    user),
              1)
        << "recipient " << user;
  }
}

// Windows are closed in many small transactions; the server crashes while
// they are: afterwards each window is closed with exactly one email
// delivery carrying its own count, and nothing else was queued.
TEST_F(RestartTest, DigestCloserQueuesOneDeliveryPerWindowAndChannelAcrossARestart) {
  constexpr int kUsers = 3000;
  MakeUsers(kUsers);
  // Two notifications in every user's window, one item in the window of
  // every third user's second key: windows of 1 and of 2 items, all due.
  db_->Scalar(
      "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) "
      "  SELECT u, 'project.comment', 'comment ' || k FROM generate_series(1, " +
      std::to_string(kUsers) +
      ") u, generate_series(1, 3) k WHERE k < 3 OR u % 3 = 0 RETURNING id, user_id, title), "
      "w AS (INSERT INTO chopar.digests (user_id, type, key, opened_at, closes_at, item_count) "
      "  SELECT user_id, 'project.comment', CASE WHEN title = 'comment 3' THEN 'b' ELSE 'a' END, "
      "    now() - interval '1 minute', now() - interval '1 second', count(*) "
      "  FROM n GROUP BY 1, 2, 3 RETURNING id, user_id, key) "
      "INSERT INTO chopar.digest_items (digest_id, notification_id, channels) "
      "SELECT w.id, n.id, '{email}' FROM n JOIN w ON w.user_id = n.user_id "
      "  AND w.key = CASE WHEN n.title = 'comment 3' THEN 'b' ELSE 'a' END");
  const std::int64_t windows = Count("SELECT count(*) FROM chopar.digests");
  db::Pool pool(db_->url(), 4);
  workflow::engine::DigestCloserSettings settings;
  settings.batch = 5;  // hundreds of transactions: the crash cuts one
  workflow::engine::DigestCloser closer(pool, real_, metrics_, nullptr, settings);
  closer.Start();

  EXPECT_TRUE(CrashWhileWorking("SELECT count(*) FROM chopar.digests WHERE status = 'closed'",
                                "SELECT count(*) FROM chopar.digests WHERE status = 'open'",
                                seconds(120)))
      << "windows still open after the restart";
  closer.Stop();
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.digests WHERE status = 'closed'"), windows);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries"), windows);
  EXPECT_EQ(Count("SELECT count(DISTINCT (digest_id, channel)) FROM chopar.deliveries "
                  "WHERE channel = 'email' AND status = 'queued'"),
            windows);
  // Each delivery carries its window's count: the newest item's
  // notification, the title the closer rendered.
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries d JOIN chopar.digests w ON w.id = "
                  "d.digest_id WHERE d.user_id <> w.user_id OR w.content ->> 'title' <> "
                  "w.item_count || CASE w.item_count WHEN 1 THEN ' new notification' "
                  "ELSE ' new notifications' END OR d.notification_id <> (SELECT max("
                  "i.notification_id) FROM chopar.digest_items i WHERE i.digest_id = w.id)"),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.digests WHERE item_count = 2"), kUsers);
}

// Delayed notifications fall due and are released in many small
// transactions; the server crashes while they are: afterwards each one is a
// notification exactly once, under the id its request was answered with.
TEST_F(RestartTest, ReleaserMakesEachDueNotificationOnceAcrossARestart) {
  constexpr int kUsers = 100, kPerUser = 30;
  MakeUsers(kUsers);
  db::Pool pool(db_->url(), 4);
  core::MetricsRegistry notify_metrics;
  hub::NotifyService notify(pool, real_, notify_metrics);
  std::vector<hub::NotificationRequest> requests;
  for (int u = 1; u <= kUsers; ++u) {
    for (int i = 0; i < kPerUser; ++i) {
      hub::NotificationRequest r;
      r.user_id = u;
      r.type = "task.due";
      r.title = "Reminder " + std::to_string(i);
      r.delay_seconds = 1;
      requests.push_back(std::move(r));
    }
  }
  std::vector<std::int64_t> ids;
  for (const auto& result : notify.NotifyBatch(requests)) {
    ASSERT_TRUE(std::holds_alternative<hub::NotifyResult>(result));
    ids.push_back(std::get<hub::NotifyResult>(result).id);
  }
  ASSERT_EQ(Count("SELECT count(*) FROM chopar.delayed_notifications"), kUsers * kPerUser);
  ASSERT_EQ(Count("SELECT count(*) FROM chopar.notifications"), 0);
  // All due before the releaser starts: it finds them so.
  ASSERT_TRUE(WaitForZero("SELECT count(*) FROM chopar.delayed_notifications WHERE due_at > now()",
                          seconds(10)));
  workflow::engine::ReleaserSettings settings;
  settings.batch = 3;  // a thousand transactions: the crash cuts one
  workflow::engine::Releaser releaser(pool, real_, metrics_, nullptr, settings);
  releaser.Start();

  EXPECT_TRUE(CrashWhileWorking("SELECT count(*) FROM chopar.notifications",
                                "SELECT count(*) FROM chopar.delayed_notifications", seconds(120)))
      << "delayed notifications left after the restart";
  releaser.Stop();
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), kUsers * kPerUser);
  std::string id_list;
  for (const std::int64_t id : ids) id_list += (id_list.empty() ? "" : ",") + std::to_string(id);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE id IN (" + id_list + ")"),
            kUsers * kPerUser)
      << "a notification under another id than its request was answered with";
}

// The server crashes while snoozed notifications come back: the batch in
// progress rolls back (those items stay snoozed and due), the loop
// reconnects, and every item comes back, unread and unseen, none left.
TEST_F(RestartTest, SnoozeReturnerBringsEveryItemBackAcrossARestart) {
  constexpr int kUsers = 100, kPerUser = 30;
  MakeUsers(kUsers);
  db_->Scalar(
      "INSERT INTO chopar.notifications (user_id, type, title, seen_at, read_at, snoozed_until) "
      "SELECT u, 'task.due', 'Snoozed ' || i, now(), now(), now() - interval '1 second' "
      "FROM generate_series(1, " +
      std::to_string(kUsers) + ") u, generate_series(1, " + std::to_string(kPerUser) + ") i");
  db::Pool pool(db_->url(), 4);
  workflow::engine::SnoozeReturnerSettings settings;
  settings.batch = 3;  // a thousand transactions: the crash cuts one
  workflow::engine::SnoozeReturner returner(pool, real_, metrics_, settings);
  returner.Start();

  EXPECT_TRUE(CrashWhileWorking(
      "SELECT count(*) FROM chopar.notifications WHERE snoozed_until IS NULL",
      "SELECT count(*) FROM chopar.notifications WHERE snoozed_until IS NOT NULL", seconds(120)))
      << "items still snoozed after the restart";
  returner.Stop();
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE snoozed_until IS NULL AND "
                  "read_at IS NULL AND seen_at IS NULL"),
            kUsers * kPerUser);
}

// The server crashes while the step advancer moves runs on: the batch in
// progress rolls back, the loop reconnects, and every run does its channel
// step once (one delivery each, none twice).
TEST_F(RestartTest, StepAdvancerDoesEachStepOnceAcrossARestart) {
  constexpr int kUsers = 100, kPerUser = 30;
  MakeUsers(kUsers);
  db_->Scalar(
      "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) "
      "SELECT u, 'task.due', 'Step ' || i FROM generate_series(1, " +
      std::to_string(kUsers) + ") u, generate_series(1, " + std::to_string(kPerUser) +
      ") i RETURNING id, created_at, user_id) "
      "INSERT INTO chopar.workflow_runs (notification_id, notification_created_at, user_id, type, "
      "due_at) SELECT id, created_at, user_id, 'task.due', now() - interval '1 second' FROM n");
  const testing::OneTemplate lookup(
      templates::ParseTemplate("task.due", nlohmann::json::parse(R"({"default_locale": "en",
        "locales": {"en": {"title": "t"}},
        "steps": [{"type": "channel", "channel": "email"}]})")));
  db::Pool pool(db_->url(), 4);
  workflow::engine::StepAdvancer advancer(pool, real_, lookup, metrics_, {.batch = 3});
  advancer.Start();

  EXPECT_TRUE(CrashWhileWorking("SELECT count(*) FROM chopar.workflow_runs WHERE status = 'done'",
                                "SELECT count(*) FROM chopar.workflow_runs WHERE status <> 'done'",
                                seconds(120)))
      << "runs not done after the restart";
  advancer.Stop();
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"),
            kUsers * kPerUser);
  EXPECT_EQ(Count("SELECT count(*) FROM (SELECT notification_id FROM chopar.deliveries "
                  "GROUP BY 1 HAVING count(*) > 1) d"),
            0);
}

// The server crashes in the middle of an erasure: the batch in progress
// rolls back, the loop reconnects and goes on from what is left, and the
// erasure completes with nothing of the user left and the other user
// untouched.
TEST_F(RestartTest, ErasureCompletesAcrossARestart) {
  constexpr int kNotifications = 3000;
  MakeUsers(2);
  db_->Scalar(
      "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) "
      "SELECT u, 'task.due', 'Old ' || i FROM generate_series(1, 2) u, generate_series(1, " +
      std::to_string(kNotifications) +
      ") i RETURNING id, user_id) "
      "INSERT INTO chopar.deliveries (notification_id, user_id, channel) "
      "SELECT id, user_id, 'email' FROM n");
  db::Pool pool(db_->url(), 4);
  (void)hub::UserErasures(pool).Request(std::vector<std::int64_t>{1}, std::nullopt);
  hub::UserEraserSettings settings;
  settings.batch = 3;  // thousands of transactions: the crash cuts one
  hub::UserEraser eraser(pool, metrics_, settings);
  eraser.Start();

  EXPECT_TRUE(CrashWhileWorking(
      "SELECT " + std::to_string(kNotifications) +
          " - count(*) FROM chopar.deliveries WHERE user_id = 1",
      "SELECT count(*) FROM chopar.user_erasures WHERE completed_at IS NULL", seconds(120)))
      << "the erasure did not complete after the restart";
  eraser.Stop();
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.users WHERE id = 1"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 1"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries WHERE user_id = 1"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 2"), kNotifications);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries WHERE user_id = 2"), kNotifications);
}

// The server crashes in the middle of a broadcast's fan-out: the batch in
// progress is rolled back with its cursor, the loop reconnects, and the
// broadcast continues from its last committed batch. Afterwards every
// recipient has exactly one notification and one delivery, and the counts
// say so.
TEST_F(RestartTest, EveryBroadcastRecipientHasExactlyOneNotificationAfterACrash) {
  constexpr int kRecipients = 20000;
  const std::string n = std::to_string(kRecipients);
  const std::string id = testing::MakeTopicBroadcast(*db_, kRecipients);

  db::Pool pool(db_->url(), 4);
  // Small batches: many of them to crash in the middle of. A short lease and
  // idle wait: the loop comes back quickly after the restart.
  broadcast::FanOut fan_out(pool, real_, metrics_,
                            broadcast::FanOutSettings{.batch = 100,
                                                      .lease = seconds(1),
                                                      .deliveries_per_second = 0,
                                                      .max_sleep = milliseconds(200)});
  fan_out.Start();
  const auto until = std::chrono::steady_clock::now() + seconds(60);
  while (Count("SELECT count(*) FROM chopar.notifications") < kRecipients / 5 &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  TestServer::CrashAndRestart();
  ASSERT_LT(Count("SELECT count(*) FROM chopar.notifications"), kRecipients)
      << "the fan-out ended before the crash; nothing was tested";

  EXPECT_TRUE(
      WaitForZero("SELECT count(*) FROM chopar.broadcasts WHERE status = 'running'", seconds(120)));
  fan_out.Stop();
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), kRecipients);
  EXPECT_EQ(Count("SELECT count(DISTINCT user_id) FROM chopar.notifications WHERE dedup_key = "
                  "'broadcast:" +
                  id + "'"),
            kRecipients);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries"), kRecipients);  // email only
  EXPECT_EQ(db_->Scalar("SELECT status || ' ' || recipients || ' ' || created FROM "
                        "chopar.broadcasts"),
            "done " + n + " " + n);
}

}  // namespace
}  // namespace chopar
