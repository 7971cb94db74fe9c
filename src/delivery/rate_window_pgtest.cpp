// The hourly-limit count (queries/count_rate_window.sql) and the throttle
// count (queries/count_throttle_window.sql) on real PostgreSQL: exact across
// the weekly partitions of `deliveries` (created_at) whatever the claim
// time, reading only the newest partitions' per-user index, and planned by
// index even when their plan was made while the table was empty.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "delivery/claim.hpp"
#include "delivery/queries.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"
#include "testing/query_plans.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class RateWindowTest : public testing::DeliveryPgTest {
 protected:
  // A notification of `user` with one email delivery created at `created`
  // and, when `claimed` is given, sent then; else queued, due at `due`.
  std::int64_t AddDelivery(std::int64_t user, core::TimePoint created,
                           std::optional<core::TimePoint> claimed,
                           std::optional<core::TimePoint> due = std::nullopt,
                           const std::string& type = "task.due") {
    const std::string at = Literal(created);
    const auto n =
        Sql("INSERT INTO notifications (user_id, type, title, created_at) VALUES (" +
            std::to_string(user) + ", '" + type + "', 'Task due', " + at + ") RETURNING id")
            .Int(0, 0);
    const std::string status = claimed ? "'sent'" : "'queued'";
    const std::string claimed_at = claimed ? Literal(*claimed) : "NULL";
    return Sql("INSERT INTO deliveries (notification_id, user_id, channel, status, "
               "next_attempt_at, "
               "claimed_at, sent_at, created_at, updated_at) VALUES (" +
               std::to_string(n) + ", " + std::to_string(user) + ", 'email', " + status + ", " +
               Literal(due.value_or(created)) + ", " + claimed_at + ", " + claimed_at + ", " + at +
               ", " + at + ") RETURNING id")
        .Int(0, 0);
  }
  static std::string Literal(core::TimePoint t) { return "'" + db::SqlTime(t) + "'::timestamptz"; }

  // What count_rate_window finds for (user 1, email) at `now`, and what a
  // plain count of the same rows finds.
  std::int64_t Counted(core::TimePoint now) {
    auto tx = pool_->Begin("count_rate_window");
    const auto r =
        tx.Exec(queries::kCountRateWindow, "{1}", "{email}", db::SqlTime(now - hours(1)), "{}");
    tx.Commit();
    return r.Int(0, "in_window");
  }
  std::int64_t Expected(core::TimePoint now) {
    return Count(
        "SELECT count(*) FROM deliveries WHERE user_id = 1 AND channel = 'email' "
        "AND status IN ('sent', 'sending') AND claimed_at > " +
        Literal(now - hours(1)));
  }

  testing::TestChannel channel_;
};

// Monday 2026-10-26 00:00 UTC, a partition boundary (chopar.history_week_start).
core::TimePoint Monday() { return *core::ParseRfc3339("2026-10-26T00:00:00Z"); }

TEST_F(RateWindowTest, HourlyLimitHoldsForADeliveryCreatedWeeksAgoAndClaimedNow) {
  AddUser(1);
  WorkerSettings settings;
  settings.hourly_limits[core::ChannelKind::kEmail] = 1;
  settings.lease = hours(2);  // still being sent at the second claim, not taken back
  // A delivery created three weeks ago whose retry falls due now.
  const core::TimePoint now = T0();
  const auto old = AddDelivery(1, now - days(21), std::nullopt, now - minutes(10));
  const ChannelSet channels = ChannelSet::AllTo(channel_);

  EXPECT_EQ(ClaimBatch(*pool_, now - minutes(10), settings, channels).to_send.size(), 1u);
  const auto fresh = Notify(1, {"email"});
  const ClaimResult second = ClaimBatch(*pool_, now, settings, channels);

  EXPECT_EQ(Field(old, "status"), "sending");
  EXPECT_TRUE(second.to_send.empty());
  EXPECT_EQ(Field(fresh[0], "status"), "skipped");
  EXPECT_EQ(Field(fresh[0], "last_error"), "hourly limit 1");
}

TEST_F(RateWindowTest, CountIsExactAroundTheWeekBoundary) {
  AddUser(1);
  AddUser(2);
  const core::TimePoint monday = Monday();
  const core::TimePoint created[] = {monday - days(20),
                                     monday - days(7),
                                     monday - minutes(30),
                                     monday - std::chrono::microseconds(1),
                                     monday,
                                     monday + minutes(40)};
  const core::TimePoint claimed[] = {
      monday - minutes(50), monday - minutes(5),  monday,
      monday + minutes(10), monday + minutes(45), monday + minutes(70),
      monday + minutes(100)};
  for (const auto c : created) {
    for (const auto at : claimed) {
      if (at < c) continue;
      AddDelivery(1, c, at);
      AddDelivery(2, c, at);  // another user's: never counted for user 1
    }
    AddDelivery(1, c, std::nullopt);  // queued: never counted
  }
  for (const auto now : {monday - minutes(20), monday + seconds(1), monday + minutes(30),
                         monday + minutes(59), monday + minutes(61), monday + minutes(90),
                         monday + hours(2), monday + days(7) + minutes(30)}) {
    SCOPED_TRACE(db::SqlTime(now));
    EXPECT_EQ(Counted(now), Expected(now));
  }
  EXPECT_GT(Expected(monday + minutes(90)), 0);
}

// The throttle count of (user 1, task.due) with its window starting at
// `since`: what count_throttle_window finds, what a plain count finds, and
// the plan it ran (EXPLAIN ANALYZE).
class ThrottleWindowTest : public RateWindowTest {
 protected:
  std::string Arguments(core::TimePoint since) {
    return "'{1}', '{task.due}', '{\"" + db::SqlTime(since) + "\"}', '{}'";
  }
  std::int64_t Counted(core::TimePoint since) {
    auto tx = pool_->Begin("count_throttle_window");
    const auto r = tx.Exec(queries::kCountThrottleWindow, "{1}", "{task.due}",
                           "{\"" + db::SqlTime(since) + "\"}", "{}");
    tx.Commit();
    return r.Int(0, "in_window");
  }
  std::int64_t Expected(core::TimePoint since) {
    return Count(
        "SELECT count(*) FROM deliveries d JOIN notifications n ON n.id = d.notification_id "
        "WHERE d.user_id = 1 AND n.type = 'task.due' AND d.status IN ('sent', 'sending') "
        "AND d.claimed_at > " +
        Literal(since));
  }
  std::string Plan(core::TimePoint since) {
    Sql("PREPARE throttle_count AS " + std::string(queries::kCountThrottleWindow.sql));
    const auto r =
        Sql("EXPLAIN (ANALYZE, COSTS OFF) EXECUTE throttle_count(" + Arguments(since) + ")");
    Sql("DEALLOCATE throttle_count");
    return chopar::testing::PlanText(r);
  }
};

TEST_F(ThrottleWindowTest, CountIsExactAroundTheWeekBoundaryAndSkipsOlderPartitionsRateIndex) {
  AddUser(1);
  AddUser(2);
  // A Monday two weeks after the database's clock: the migrations created
  // weekly partitions around it (four weeks ahead of now).
  const core::TimePoint monday = *core::ParseRfc3339(
      Scalar("SELECT to_char((chopar.history_week_start(now()) + interval '14 days') AT TIME ZONE "
             "'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"));
  const core::TimePoint created[] = {monday - days(7), monday - hours(20), monday - minutes(30),
                                     monday, monday + minutes(40)};
  const core::TimePoint claimed[] = {monday - hours(30),   monday - minutes(50),
                                     monday - minutes(5),  monday + minutes(10),
                                     monday + minutes(45), monday + minutes(100)};
  for (const auto c : created) {
    for (const auto at : claimed) {
      if (at < c) continue;
      AddDelivery(1, c, at);
      AddDelivery(1, c, at, std::nullopt, "news");  // another type: never counted
      AddDelivery(2, c, at);                        // another user's: never counted
    }
    AddDelivery(1, c, std::nullopt);  // queued: never counted
  }
  for (const auto now : {monday - minutes(20), monday + seconds(1), monday + minutes(30),
                         monday + minutes(61), monday + hours(2), monday + days(1)}) {
    for (const auto window : {hours(1), hours(24)}) {
      SCOPED_TRACE(db::SqlTime(now) + " window " + std::to_string(window.count()) + " h");
      EXPECT_EQ(Counted(now - window), Expected(now - window));
    }
  }

  // The week before `monday` is another partition: for a window starting
  // after monday, its per-user index (deliveries_rate) is not read; its rows
  // claimed late are found through deliveries_claimed_late.
  const std::string older = Scalar(
      "SELECT i.inhrelid::regclass::text FROM pg_inherits i "
      "JOIN pg_index x ON x.indexrelid = i.inhrelid "
      "WHERE i.inhparent = 'chopar.deliveries_rate'::regclass AND x.indrelid = "
      "(SELECT tableoid FROM deliveries WHERE created_at = " +
      Literal(monday - minutes(30)) + " LIMIT 1)");
  ASSERT_FALSE(older.empty());
  ASSERT_GT(
      Expected(monday + minutes(30)),
      Count(
          "SELECT count(*) FROM deliveries d JOIN notifications n ON n.id = d.notification_id "
          "WHERE d.user_id = 1 AND n.type = 'task.due' AND d.status = 'sent' AND d.claimed_at > " +
          Literal(monday + minutes(30)) + " AND d.created_at >= " + Literal(monday)));
  const std::string plan = Plan(monday + minutes(30));
  const std::string name = older.substr(older.find('.') + 1);
  for (std::size_t at = plan.find(name); at != std::string::npos; at = plan.find(name, at + 1)) {
    const std::string line = plan.substr(at, plan.find('\n', at) - at);
    EXPECT_NE(line.find("never executed"), std::string::npos) << plan;
  }
}

// The plan that the claims on one pooled connection use for the count,
// logged by auto_explain into the server's log: a generic plan made while
// `deliveries` was empty must not read the partitions sequentially once a
// broadcast filled them, in either pooling mode (named statements cache it;
// unnamed ones are planned every time).
class RateWindowPlanTest : public RateWindowTest,
                           public ::testing::WithParamInterface<db::ServerPooling> {};

TEST_P(RateWindowPlanTest, CountPlannedOnAnEmptyTableProbesTheIndexOnceTheTableIsFull) {
  const char* server_log = std::getenv("CHOPAR_TEST_PG_LOG");
  if (server_log == nullptr) GTEST_SKIP() << "needs scripts/with-test-pg (CHOPAR_TEST_PG_LOG)";
  // No autovacuum: an ANALYZE would make every session plan again.
  const auto partitions =
      Sql("SELECT relid::text FROM pg_partition_tree('chopar.deliveries') WHERE isleaf");
  for (int i = 0; i < partitions.Rows(); ++i)
    Sql("ALTER TABLE " + partitions.String(i, 0) + " SET (autovacuum_enabled = off)");
  AddUser(1);
  Sql("ANALYZE deliveries");
  db::PoolSettings settings;
  settings.conninfo = db_->url();
  settings.pooling = GetParam();
  settings.size = 1;
  db::Pool pool(settings);
  {
    auto conn = pool.Acquire();
    conn->ExecText("LOAD 'auto_explain'", {});
    conn->ExecText("SET auto_explain.log_min_duration = 0", {});
  }
  WorkerSettings worker;
  worker.hourly_limits[core::ChannelKind::kEmail] = 1'000'000;
  const ChannelSet channels = ChannelSet::AllTo(channel_);
  for (int i = 0; i < 8; ++i) {
    Notify(1, {"email"});
    ASSERT_EQ(ClaimBatch(pool, clock_.Now(), worker, channels).to_send.size(), 1u);
    clock_.Advance(seconds(1));
  }
  // A broadcast's worth of sent rows, not analyzed.
  Sql("INSERT INTO users (id, email) SELECT g, 'u' || g || '@example.uz' FROM generate_series(2, "
      "2001) g");
  Sql("INSERT INTO notifications (user_id, type, title, created_at) SELECT 2 + g % 2000, 'news', "
      "'News', " +
      Literal(clock_.Now()) + " FROM generate_series(1, 200000) g");
  Sql("INSERT INTO deliveries (notification_id, user_id, channel, status, claimed_at, sent_at, "
      "created_at) "
      "SELECT id, user_id, 'email', 'sent', created_at, created_at, created_at FROM notifications "
      "WHERE type = 'news'");

  // The partition the broadcast filled: the plan must not read it whole.
  const std::string filled =
      Scalar("SELECT tableoid::regclass::text FROM deliveries WHERE user_id = 2 LIMIT 1");
  ASSERT_FALSE(filled.empty());

  std::ifstream log_file(server_log);
  log_file.seekg(0, std::ios::end);
  const std::streamoff before = log_file.tellg();
  Notify(1, {"email"});
  ASSERT_EQ(ClaimBatch(pool, clock_.Now(), worker, channels).to_send.size(), 1u);

  std::ifstream log(server_log);
  log.seekg(before);
  std::stringstream text;
  text << log.rdbuf();
  const std::string logged = text.str();
  // The count's entry: from its query text to the next log line.
  const std::size_t start = logged.find("AS in_window");
  ASSERT_NE(start, std::string::npos) << "auto_explain logged no plan of the count";
  std::size_t end = logged.find("\n20", start);
  const std::string plan = logged.substr(start, end == std::string::npos ? end : end - start);
  EXPECT_EQ(plan.find("Seq Scan on " + filled.substr(filled.find('.') + 1)), std::string::npos)
      << plan;
  EXPECT_NE(plan.find("Index"), std::string::npos) << plan;
}

INSTANTIATE_TEST_SUITE_P(BothPoolingModes, RateWindowPlanTest,
                         ::testing::Values(db::ServerPooling::kNone,
                                           db::ServerPooling::kTransaction),
                         [](const auto& info) {
                           return info.param == db::ServerPooling::kNone ? std::string("Named")
                                                                         : std::string("Unnamed");
                         });

}  // namespace
}  // namespace chopar::delivery
