// The horizon of active deliveries (migration 0037, delivery/horizon.hpp):
// the history maintenance moves it past quiet weeks more than two weeks
// old, an operator's retry of an older delivery lowers it in its own
// statement, and a claim bound by a horizon it learned before the retry
// claims again and sends the delivery, once. The two writers of the row are
// raced both ways on real connections: whichever holds the row first, no
// queued or sending delivery is left older than the horizon.
//
// Time is simulated, weeks after the migration's cutover, so the weekly
// partitions of that future are in this test's past.

#include <gtest/gtest.h>

#include <future>
#include <optional>
#include <string>

#include "channels/sink_channel.hpp"
#include "console/delivery_retry.hpp"
#include "console/queries.hpp"
#include "delivery/claim.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/worker.hpp"
#include "retention/history_maintenance.hpp"

namespace chopar {
namespace {

using namespace std::chrono_literals;
using delivery::ActiveHorizon;

constexpr auto kWeek = std::chrono::hours(24 * 7);

class DeliveryHorizonTest : public delivery::testing::DeliveryPgTest {
 protected:
  void SetUp() override {
    DeliveryPgTest::SetUp();
    if (IsSkipped()) return;
    cutover_ = core::ParsePgTimestamp(
        Scalar("SELECT upper_bound::text FROM chopar.history_partitions('chopar.deliveries') "
               "WHERE lower_bound = '-infinity'"));
    clock_.Set(cutover_ + 6 * kWeek);
    pool_.emplace(db_->url(), 4);
    sink_.emplace(*pool_);
    maintenance_.emplace(*pool_, clock_, metrics_, retention::RetentionSettings{});
    maintenance_->RunOnce();  // the weeks up to the simulated now and ahead of it
    // That pass found no delivery and moved the horizon; the history the
    // tests write below it was there before, as on a database that had
    // never run a pass.
    Sql("UPDATE delivery_horizon SET active_from = '-infinity'");
    AddUser(1);
  }

  // A delivery created `after_cutover` after the cutover, in `status`.
  std::int64_t DeliveryAt(std::chrono::hours after_cutover, const std::string& status) {
    const std::string at = Quote(cutover_ + after_cutover);
    const std::string sent = status == "sent" ? at : "NULL";
    return Sql("WITH n AS (INSERT INTO notifications (user_id, type, title, created_at) "
               "VALUES (1, 'history.kept', 'then', " +
               at +
               ") RETURNING id, created_at) "
               "INSERT INTO deliveries (notification_id, user_id, channel, status, attempts, "
               "next_attempt_at, claimed_at, sent_at, created_at, updated_at) "
               "SELECT id, 1, 'email', '" +
               status + "', 1, " + at + ", " + sent + ", " + sent +
               ", created_at, created_at FROM n RETURNING id")
        .Int(0, 0);
  }

  static std::string Quote(core::TimePoint t) { return "'" + core::FormatRfc3339Micros(t) + "'"; }

  std::string Horizon() { return Scalar("SELECT active_from::text FROM delivery_horizon"); }
  // The invariant: queued or sending deliveries created before the horizon.
  std::int64_t ActiveBeforeTheHorizon() {
    return Count(
        "SELECT count(*) FROM deliveries WHERE status IN ('queued', 'sending') "
        "AND created_at < (SELECT active_from FROM delivery_horizon)");
  }
  // The upper bound of the newest weekly partition that ended two weeks
  // before the simulated now: how far a pass moves over quiet weeks.
  std::string QuietHorizon() {
    return Scalar(
        "SELECT max(upper_bound)::text FROM chopar.history_partitions('chopar.deliveries') "
        "WHERE upper_bound <= " +
        Quote(clock_.Now()) + "::timestamptz - interval '14 days'");
  }
  // The lower bound of the weekly partition that holds `delivery`.
  std::string WeekOf(std::int64_t delivery) {
    return Scalar(
        "SELECT p.lower_bound::text FROM deliveries d, "
        "chopar.history_partitions('chopar.deliveries') p WHERE d.id = " +
        std::to_string(delivery) +
        " AND d.created_at >= p.lower_bound AND d.created_at < p.upper_bound");
  }
  // True once some backend waits for a lock that `holder`'s session holds.
  bool SomeoneWaitsFor(db::Connection& holder) {
    const std::string pid = holder.ExecText("SELECT pg_backend_pid()", {}).String(0, 0);
    return Count("SELECT count(*) FROM pg_stat_activity WHERE " + pid +
                 " = ANY (pg_blocking_pids(pid))") > 0;
  }

  delivery::ClaimResult Claim(ActiveHorizon& horizon) {
    return delivery::ClaimBatch(*pool_, clock_.Now(), delivery::WorkerSettings{},
                                delivery::ChannelSet::AllTo(*sink_), nullptr, &horizon);
  }

  core::TimePoint cutover_;
  std::optional<db::Pool> pool_;
  std::optional<channels::SinkChannel> sink_;
  std::optional<retention::HistoryMaintenance> maintenance_;
};

TEST_F(DeliveryHorizonTest, APassMovesPastQuietWeeksAndStopsAtTheFirstActiveOne) {
  for (int week = 0; week < 6; ++week) DeliveryAt(week * kWeek + 1h, "sent");
  // Deferred to tomorrow (quiet hours): queued, so its week stays in.
  const std::int64_t deferred = DeliveryAt(2 * kWeek + 1h, "queued");
  Sql("UPDATE deliveries SET next_attempt_at = " + Quote(clock_.Now() + 24h) +
      " WHERE id = " + std::to_string(deferred));
  EXPECT_EQ(Horizon(), "-infinity");

  EXPECT_EQ(maintenance_->RunOnce().delivery_horizon, WeekOf(deferred));
  EXPECT_EQ(Horizon(), WeekOf(deferred));
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0);

  Sql("UPDATE deliveries SET status = 'sending', lease_until = " + Quote(clock_.Now() + 1min) +
      ", claim_token = gen_random_uuid(), claimed_at = " + Quote(clock_.Now()) +
      " WHERE id = " + std::to_string(deferred));
  EXPECT_EQ(maintenance_->RunOnce().delivery_horizon, WeekOf(deferred)) << "sending holds it too";

  Sql("UPDATE deliveries SET status = 'sent', sent_at = claimed_at, lease_until = NULL, "
      "claim_token = NULL WHERE id = " +
      std::to_string(deferred));
  const std::string quiet = QuietHorizon();
  EXPECT_EQ(maintenance_->RunOnce().delivery_horizon, quiet);
  EXPECT_EQ(Horizon(), quiet);
  EXPECT_GT(core::ParsePgTimestamp(quiet), cutover_ + 3 * kWeek);
  EXPECT_LE(core::ParsePgTimestamp(quiet), clock_.Now() - 14 * 24h) << "two weeks stay in";
  EXPECT_DOUBLE_EQ(
      metrics_.GetGauge("chopar_delivery_horizon_timestamp_seconds", "").Value(),
      std::chrono::duration<double>(core::ParsePgTimestamp(quiet).time_since_epoch()).count());
}

// The advance holds the row (and has passed the failed delivery's week,
// which it saw as quiet); the retry waits for it, then lowers what it moved to.
TEST_F(DeliveryHorizonTest, ARetryWaitingForAnAdvanceLowersWhatTheAdvanceMovedTo) {
  const std::int64_t failed = DeliveryAt(1 * kWeek + 1h, "failed");
  db::Connection advance = db_->Connect();
  advance.Begin();
  const std::string moved =
      advance
          .ExecText("SELECT chopar.advance_delivery_horizon($1::timestamptz, '14 days')::text",
                    db::Params(core::FormatRfc3339Micros(clock_.Now())))
          .String(0, 0);
  ASSERT_EQ(moved, QuietHorizon());

  auto retry = std::async(std::launch::async, [&] { console::RetryDelivery(*pool_, failed); });
  ASSERT_TRUE(WaitUntil([&] { return SomeoneWaitsFor(advance); }));
  advance.ExecText("COMMIT", {});
  retry.get();

  EXPECT_EQ(Field(failed, "status"), "queued");
  EXPECT_EQ(Horizon(), Field(failed, "created_at"));
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0);
}

// The retry holds the row; the advance waits for it, then sees the queued
// delivery and stops before its week.
TEST_F(DeliveryHorizonTest, AnAdvanceWaitingForARetryStopsBeforeTheRetriedWeek) {
  const std::int64_t failed = DeliveryAt(1 * kWeek + 1h, "failed");
  db::Connection retry = db_->Connect();
  retry.Begin();
  ASSERT_EQ(retry.Exec(console::queries::kRequeueDelivery, failed).Rows(), 1);

  auto pass = std::async(std::launch::async, [&] { return maintenance_->RunOnce(); });
  ASSERT_TRUE(WaitUntil([&] { return SomeoneWaitsFor(retry); }));
  retry.ExecText("COMMIT", {});

  // Stopped at the week (-infinity before the first pass), never past it.
  const std::string horizon = pass.get().delivery_horizon;
  EXPECT_EQ(horizon, WeekOf(failed));
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0);
}

TEST_F(DeliveryHorizonTest, AClaimBoundByAnOlderReadOfTheHorizonClaimsAgainAndSendsOnce) {
  const std::int64_t failed = DeliveryAt(1 * kWeek + 1h, "failed");
  maintenance_->RunOnce();
  ActiveHorizon horizon;
  EXPECT_FALSE(Claim(horizon).horizon_lowered) << "-infinity: nothing is lower";
  ASSERT_EQ(ActiveHorizon::Sql(horizon.Current()),
            core::FormatRfc3339Micros(core::ParsePgTimestamp(QuietHorizon())));

  console::RetryDelivery(*pool_, failed);  // due at the database's now, before the simulated one

  const delivery::ClaimResult stale = Claim(horizon);
  EXPECT_TRUE(stale.horizon_lowered);
  EXPECT_EQ(stale.locked, 0) << "the retried week was left out of the claim";
  const delivery::ClaimResult again = Claim(horizon);
  EXPECT_FALSE(again.horizon_lowered);
  EXPECT_EQ(again.sent[core::ChannelKind::kEmail], 1);
  EXPECT_EQ(Field(failed, "status"), "sent");
  EXPECT_EQ(
      Count("SELECT count(*) FROM sink_messages WHERE delivery_id = " + std::to_string(failed)), 1);
}

// The same through a running worker: it has learned the advanced horizon
// from its claims when the operator retries the older delivery.
TEST_F(DeliveryHorizonTest, ARunningWorkerSendsARetriedOlderDeliveryOnce) {
  const std::int64_t failed = DeliveryAt(1 * kWeek + 1h, "failed");
  maintenance_->RunOnce();
  core::MetricsRegistry worker_metrics;
  delivery::WorkerSettings settings;
  settings.poll_interval = 1h;  // only the NOTIFY of the retry wakes it
  delivery::Worker worker(*pool_, delivery::ChannelSet::AllTo(*sink_), clock_, worker_metrics,
                          settings);
  // Its first claim sends this one and learns the advanced horizon.
  const auto fresh = Notify(1, {"email"});
  worker.Start();
  ASSERT_TRUE(WaitUntil([&] { return Field(fresh[0], "status") == "sent"; }));

  console::RetryDelivery(*pool_, failed);
  EXPECT_TRUE(WaitUntil([&] { return Field(failed, "status") == "sent"; }, 10s));
  worker.Stop();
  EXPECT_EQ(
      Count("SELECT count(*) FROM sink_messages WHERE delivery_id = " + std::to_string(failed)), 1);
}

}  // namespace
}  // namespace chopar
