// The partition maintenance of the history tables against a real
// PostgreSQL migrated to the partitioned schema: partitions are created
// ahead (and exactly once by processes running at once), retention drops
// whole old partitions and nothing else, and does so beside live traffic.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "retention/history_maintenance.hpp"
#include "testing/test_database.hpp"

namespace chopar::retention {
namespace {

using namespace std::chrono_literals;

constexpr auto kWeek = std::chrono::hours(24 * 7);

class HistoryMaintenanceTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (!db_) return;
    db_->Scalar("INSERT INTO chopar.users (id) VALUES (1)");
    cutover_ = Time(
        "SELECT upper_bound FROM chopar.history_partitions('chopar.deliveries') "
        "WHERE lower_bound = '-infinity'");
  }

  // The timestamptz the query returns.
  core::TimePoint Time(const std::string& query) {
    return core::TimePoint(
        std::chrono::seconds(db_->Count("SELECT extract(epoch FROM (" + query + "))::bigint")));
  }
  static std::string Sql(core::TimePoint t) { return "'" + core::FormatRfc3339Micros(t) + "'"; }
  // The name of the weekly partition of `table` that begins at `monday`.
  std::string WeekPartition(const std::string& table, core::TimePoint monday) {
    return table + "_p" +
           db_->Scalar("SELECT to_char(" + Sql(monday) +
                       "::timestamptz AT TIME ZONE 'UTC', 'YYYYMMDD')");
  }

  // A notification created at `at` with one delivery and its sink message,
  // all three stamped `at`.
  void HistoryAt(core::TimePoint at) {
    db_->Scalar(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, created_at) "
        "VALUES (1, 'history.test', 'old', " +
        Sql(at) +
        ") RETURNING id, created_at), "
        "d AS (INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
        "SELECT id, 1, 'email', created_at FROM n RETURNING id, created_at) "
        "INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, created_at) "
        "SELECT id, 'email', 1, created_at FROM d");
  }

  std::int64_t Rows(const std::string& table, core::TimePoint from, core::TimePoint to) {
    return db_->Count("SELECT count(*) FROM " + table + " WHERE created_at >= " + Sql(from) +
                      " AND created_at < " + Sql(to));
  }
  std::int64_t Partitions(const std::string& table) {
    return db_->Count("SELECT count(*) FROM chopar.history_partitions('" + table + "')");
  }
  core::TimePoint NewestBound(const std::string& table) {
    return Time("SELECT max(upper_bound) FROM chopar.history_partitions('" + table + "')");
  }

  core::TimePoint cutover_;  // the upper bound of the first partition
  core::MetricsRegistry metrics_;
};

TEST_F(HistoryMaintenanceTest, MigrationLeavesWeeksAheadAndTheOldTableAsFirstPartition) {
  EXPECT_EQ(db_->Scalar("SELECT c.relname FROM chopar.history_partitions('chopar.deliveries') p "
                        "JOIN pg_class c ON c.oid = p.partition WHERE lower_bound = '-infinity'"),
            "deliveries_legacy");
  const auto now = Time("SELECT now()");
  for (const char* table : {"chopar.deliveries", "chopar.sink_messages"}) {
    EXPECT_GE(NewestBound(table), now + 4 * kWeek) << table;
    // Weekly partitions without gaps: each starts where the one before ends.
    EXPECT_EQ(db_->Count(std::string("SELECT count(*) FROM (SELECT lower_bound, lag(upper_bound) "
                                     "OVER (ORDER BY upper_bound) AS previous FROM "
                                     "chopar.history_partitions('") +
                         table + "')) p WHERE previous IS NOT NULL AND previous <> lower_bound"),
              0);
  }
}

TEST_F(HistoryMaintenanceTest, CreatesPartitionsAheadOfTheClockOnce) {
  core::SimulatedClock clock(cutover_ + 9 * kWeek + 3h);
  HistoryMaintenance maintenance(*pool_, clock, metrics_, {});
  const MaintenanceReport first = maintenance.RunOnce();
  EXPECT_GT(first.created, 0);
  EXPECT_TRUE(first.dropped.empty());
  for (const char* table : {"chopar.deliveries", "chopar.sink_messages"}) {
    EXPECT_GE(NewestBound(table), clock.Now() + 4 * kWeek) << table;
    EXPECT_LE(NewestBound(table), clock.Now() + 5 * kWeek) << table;
  }
  // A row can be written in any week up to then.
  HistoryAt(clock.Now() + 4 * kWeek);

  const std::int64_t partitions = Partitions("chopar.deliveries");
  EXPECT_EQ(maintenance.RunOnce().created, 0);
  EXPECT_EQ(Partitions("chopar.deliveries"), partitions);
  EXPECT_EQ(
      metrics_.GetGauge("chopar_history_partitions", "", {{"table", "chopar.deliveries"}}).Value(),
      static_cast<double>(partitions));
  EXPECT_GT(
      metrics_.GetGauge("chopar_history_maintenance_last_success_timestamp_seconds", "").Value(),
      0);
}

// Two processes (each its own pool and maintenance) passing at once, again
// and again while time moves on: every week gets exactly one partition and
// no pass fails.
TEST_F(HistoryMaintenanceTest, ProcessesPassingAtOnceCreateEachPartitionOnce) {
  core::SimulatedClock clock(cutover_);
  db::Pool other_pool(db_->url(), 2);
  HistoryMaintenance first(*pool_, clock, metrics_, {});
  core::MetricsRegistry other_metrics;
  HistoryMaintenance second(other_pool, clock, other_metrics, {});
  std::atomic<int> failures{0};
  for (int round = 0; round < 8; ++round) {
    clock.Advance(kWeek);
    std::vector<std::thread> processes;
    for (HistoryMaintenance* m : {&first, &second}) {
      processes.emplace_back([m, &failures] {
        try {
          (void)m->RunOnce();
        } catch (const std::exception& e) {
          ADD_FAILURE() << e.what();
          ++failures;
        }
      });
    }
    for (auto& p : processes) p.join();
  }
  EXPECT_EQ(failures.load(), 0);
  // The first partition, then every week from it until the one that holds
  // four weeks after the clock.
  EXPECT_EQ(Partitions("chopar.deliveries"),
            db_->Count("SELECT 2 + floor(extract(epoch FROM " + Sql(clock.Now() + 4 * kWeek) +
                       "::timestamptz - " + Sql(cutover_) + "::timestamptz) / 604800)"));
}

TEST_F(HistoryMaintenanceTest, RetentionDropsOnlyPartitionsWhollyOlderThanTheCutoff) {
  core::SimulatedClock clock(cutover_);
  HistoryMaintenance setup(*pool_, clock, metrics_, {});
  (void)setup.RunOnce();
  // Rows in the first partition and in the three weeks after it.
  const core::TimePoint before = cutover_ - 1h;
  const core::TimePoint week1 = cutover_ + 1h;
  const core::TimePoint week2 = cutover_ + kWeek + 1h;
  const core::TimePoint week3 = cutover_ + 2 * kWeek + 1h;
  for (core::TimePoint at : {before, week1, week1, week2, week3}) HistoryAt(at);
  const std::int64_t notifications = db_->Count("SELECT count(*) FROM chopar.notifications");

  // 7 days before this is one hour into week 2: the first partition and
  // week 1 are wholly older; week 2 is not (its second hour is newer).
  clock.Set(cutover_ + 2 * kWeek + 1h);
  RetentionSettings settings;
  settings.deliveries_days = 7;
  HistoryMaintenance retention(*pool_, clock, metrics_, settings);
  const MaintenanceReport report = retention.RunOnce();
  EXPECT_EQ(report.dropped, (std::vector<std::string>{
                                "chopar.deliveries_legacy",
                                WeekPartition("chopar.deliveries", cutover_),
                                "chopar.sink_messages_legacy",
                                WeekPartition("chopar.sink_messages", cutover_),
                            }));
  for (const char* table : {"chopar.deliveries", "chopar.sink_messages"}) {
    EXPECT_EQ(Rows(table, before, cutover_ + kWeek), 0) << table;
    EXPECT_EQ(Rows(table, week2, week2 + 1s), 1) << table;
    EXPECT_EQ(Rows(table, week3, week3 + 1s), 1) << table;
  }
  // notifications_days 0: all kept.
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), notifications);
  EXPECT_EQ(metrics_
                .GetCounter("chopar_history_partitions_dropped_total", "",
                            {{"table", "chopar.deliveries"}})
                .Value(),
            2);
  // Done is done: the next pass drops nothing.
  EXPECT_TRUE(retention.RunOnce().dropped.empty());
}

// No delivery or digest item is left naming a notification that is gone
// (their foreign keys are gone with partitioning: docs/operations.md).
void ExpectNoOrphans(chopar::testing::TestDatabase& db) {
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries d WHERE NOT EXISTS "
                     "(SELECT 1 FROM chopar.notifications n WHERE n.id = d.notification_id)"),
            0);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.digest_items i WHERE NOT EXISTS "
                     "(SELECT 1 FROM chopar.notifications n WHERE n.id = i.notification_id)"),
            0);
}

// notifications_days: whole weeks of notifications go after their
// deliveries, with the items of their closed digests, and then their dedup
// keys; a deleted user's deliveries go with the user.
TEST_F(HistoryMaintenanceTest, RetentionDropsOldNotificationsTheirKeysAndNothingNamesThem) {
  core::SimulatedClock clock(cutover_);
  HistoryMaintenance setup(*pool_, clock, metrics_, {});
  (void)setup.RunOnce();
  const core::TimePoint notifications_cutover = Time(
      "SELECT upper_bound FROM chopar.history_partitions('chopar.notifications') "
      "WHERE lower_bound = '-infinity'");
  db_->Scalar("INSERT INTO chopar.users (id) VALUES (2)");
  // A keyed notification with a delivery, as insert_notifications writes it.
  const auto keyed_at = [&](int user, const std::string& key, core::TimePoint at) {
    return db_->Count(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, dedup_key, "
        "created_at) VALUES (" +
        std::to_string(user) + ", 'history.test', 'old', '" + key + "', " + Sql(at) +
        ") RETURNING id, user_id, dedup_key, created_at), "
        "k AS (INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, "
        "created_at) SELECT user_id, dedup_key, id, created_at FROM n), "
        "d AS (INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
        "SELECT id, user_id, 'email', created_at FROM n) SELECT id FROM n");
  };
  const core::TimePoint before = notifications_cutover - 1h;
  const core::TimePoint week1 = notifications_cutover + 1h;
  const core::TimePoint week3 = notifications_cutover + 2 * kWeek + 1h;
  keyed_at(1, "old", before);
  const std::int64_t in_digest = keyed_at(1, "week1", week1);
  const std::int64_t week3_id = keyed_at(1, "week3", week3);
  keyed_at(2, "gone", week3);
  // A digest of week 1, closed: its delivery was created when it closed,
  // days after its item's notification.
  db_->Scalar(
      "INSERT INTO chopar.digests (id, user_id, type, key, status, opened_at, closes_at, "
      "item_count, closed_at) OVERRIDING SYSTEM VALUE VALUES (1, 1, 'history.test', '', "
      "'closed', " +
      Sql(week1) + ", " + Sql(week1 + 48h) + ", 1, " + Sql(week1 + 48h) + ")");
  db_->Scalar("INSERT INTO chopar.digest_items (digest_id, notification_id, channels) VALUES (1, " +
              std::to_string(in_digest) + ", '{email}')");
  db_->Scalar(
      "INSERT INTO chopar.deliveries (notification_id, user_id, channel, digest_id, "
      "created_at) VALUES (" +
      std::to_string(in_digest) + ", 1, 'sms', 1, " + Sql(week1 + 48h) + ")");

  // Presses of action buttons: of the week-1 notification two days on
  // (its partition goes), and of the week-3 one (kept).
  const auto pressed = [&](std::int64_t notification, core::TimePoint at) {
    db_->Scalar(
        "INSERT INTO chopar.notification_actions (notification_id, action_index, user_id, event, "
        "pressed_at) VALUES (" +
        std::to_string(notification) + ", 0, 1, 'invite.accept', " + Sql(at) + ")");
  };
  pressed(in_digest, week1 + 48h);
  pressed(week3_id, week3 + 1h);
  // Workflow runs of a week-1 notification (its partition goes) and of the
  // week-3 one (kept).
  for (const auto& [notification, at] : {std::pair{in_digest, week1}, std::pair{week3_id, week3}}) {
    db_->Scalar(
        "INSERT INTO chopar.workflow_runs (notification_id, notification_created_at, user_id, "
        "type, status) VALUES (" +
        std::to_string(notification) + ", " + Sql(at) + ", 1, 'history.test', 'done') RETURNING 1");
  }

  // A deleted user's deliveries go with it (the trigger on users).
  db_->Scalar("DELETE FROM chopar.users WHERE id = 2");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE user_id = 2"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notification_dedup WHERE user_id = 2"), 0);
  ExpectNoOrphans(*db_);

  // Four weeks and an hour on: deliveries (7 days) of weeks 1 to 3 go,
  // notifications (15 days) of the first partition and week 1.
  clock.Set(notifications_cutover + 4 * kWeek + 1h);
  RetentionSettings settings;
  settings.deliveries_days = 7;
  settings.notifications_days = 15;
  settings.dedup_batch = 1;  // a batch per key: the loop is exercised
  HistoryMaintenance retention(*pool_, clock, metrics_, settings);
  const MaintenanceReport report = retention.RunOnce();
  EXPECT_NE(std::find(report.dropped.begin(), report.dropped.end(), "chopar.notifications_legacy"),
            report.dropped.end());
  EXPECT_NE(std::find(report.dropped.begin(), report.dropped.end(),
                      WeekPartition("chopar.notifications", notifications_cutover)),
            report.dropped.end());
  EXPECT_EQ(report.digest_items_deleted, 1);
  EXPECT_EQ(report.dedup_keys_deleted, 2);
  EXPECT_EQ(report.action_presses_deleted, 1);
  EXPECT_EQ(db_->Count("SELECT notification_id FROM chopar.notification_actions"), week3_id);
  EXPECT_EQ(report.workflow_runs_deleted, 1);
  EXPECT_EQ(db_->Count("SELECT notification_id FROM chopar.workflow_runs"), week3_id);
  EXPECT_EQ(db_->Scalar("SELECT string_agg(dedup_key, ',' ORDER BY dedup_key) "
                        "FROM chopar.notification_dedup"),
            "week3");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 1);
  ExpectNoOrphans(*db_);
  // Done is done.
  const MaintenanceReport again = retention.RunOnce();
  EXPECT_TRUE(again.dropped.empty());
  EXPECT_EQ(again.dedup_keys_deleted, 0);
}

TEST_F(HistoryMaintenanceTest, ZeroDaysKeepsEverything) {
  core::SimulatedClock clock(cutover_ + 30 * kWeek);
  HistoryAt(cutover_ - 1h);
  HistoryMaintenance maintenance(*pool_, clock, metrics_, {});
  EXPECT_TRUE(maintenance.RunOnce().dropped.empty());
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 1);
}

// The audit log keeps audit_days: older rows go, oldest first, in batches;
// newer ones stay; 0 keeps all.
TEST_F(HistoryMaintenanceTest, AuditRetentionDeletesOnlyRowsOlderThanItsDays) {
  core::SimulatedClock clock(cutover_ + 30 * kWeek);
  const std::string insert =
      "INSERT INTO chopar.audit_log (at, actor, action, resource, resource_id, after) "
      "SELECT " +
      Sql(clock.Now()) +
      "::timestamptz - make_interval(days => d), 'cli', 'create', "
      "'user', d::text, '{}' FROM generate_series(";
  // 25 rows 100..124 days old first (oldest first, as the log is written),
  // then 5 rows 1..5 days old.
  db_->Scalar("WITH r AS (" + insert + "124, 100, -1) d RETURNING 1) SELECT count(*) FROM r");
  db_->Scalar("WITH r AS (" + insert + "5, 1, -1) d RETURNING 1) SELECT count(*) FROM r");
  HistoryMaintenance keep_all(*pool_, clock, metrics_, {});
  EXPECT_EQ(keep_all.RunOnce().audit_rows_deleted, 0);
  RetentionSettings settings;
  settings.audit_days = 90;
  settings.dedup_batch = 10;  // three batches
  HistoryMaintenance retention(*pool_, clock, metrics_, settings);
  EXPECT_EQ(retention.RunOnce().audit_rows_deleted, 25);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log"), 5);
  EXPECT_EQ(db_->Count("SELECT max(resource_id::int) FROM chopar.audit_log"), 5);
  EXPECT_EQ(retention.RunOnce().audit_rows_deleted, 0);
}

// Two processes' passes at once delete each old audit row once between
// them, neither fails, and the newer rows stay (their batches read the same
// oldest rows; the later one finds them gone and stops).
TEST_F(HistoryMaintenanceTest, TwoProcessesTrimTheAuditLogAtOnceWithoutFailing) {
  core::SimulatedClock clock(cutover_ + 30 * kWeek);
  db_->Scalar(
      "WITH r AS (INSERT INTO chopar.audit_log (at, actor, action, resource, resource_id, after) "
      "SELECT " +
      Sql(clock.Now()) +
      "::timestamptz - make_interval(days => 100 + d / 10), "
      "'cli', 'create', 'user', d::text, '{}' FROM generate_series(1000, 1, -1) d "
      "RETURNING 1) SELECT count(*) FROM r");
  db_->Scalar(
      "WITH r AS (INSERT INTO chopar.audit_log (at, actor, action, resource, resource_id, after) "
      "SELECT " +
      Sql(clock.Now()) +
      "::timestamptz - interval '1 day', 'cli', 'create', 'user', "
      "'new', '{}' FROM generate_series(1, 5) RETURNING 1) SELECT count(*) FROM r");
  RetentionSettings settings;
  settings.audit_days = 90;
  settings.dedup_batch = 50;
  db::Pool other_pool(db_->url(), 2);
  core::MetricsRegistry other_metrics;
  HistoryMaintenance first(*pool_, clock, metrics_, settings);
  HistoryMaintenance second(other_pool, clock, other_metrics, settings);
  std::atomic<long> deleted{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> processes;
  for (HistoryMaintenance* m : {&first, &second}) {
    processes.emplace_back([m, &deleted, &failures] {
      try {
        // A pass may stop early when the other took its batch: run until done.
        for (int pass = 0; pass < 50; ++pass) deleted += m->RunOnce().audit_rows_deleted;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  }
  for (auto& p : processes) p.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(deleted.load(), 1000);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log"), 5);
}

// Retention while a writer inserts and updates deliveries in the current
// weeks without pause: the writer never fails, and retention drops what it
// should (a pass that could not get its lock in time is simply repeated).
TEST_F(HistoryMaintenanceTest, RetentionRunsBesideLiveTraffic) {
  core::SimulatedClock clock(cutover_);
  HistoryMaintenance setup(*pool_, clock, metrics_, {});
  (void)setup.RunOnce();
  for (int week = 0; week < 3; ++week) HistoryAt(cutover_ + week * kWeek + 1h);
  // The writer's rows go to the newest of those weeks, which retention keeps.
  const std::string live_at = Sql(cutover_ + 2 * kWeek + 90min);
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::string writer_error;
  std::thread writer([&] {
    try {
      db::Connection conn = db_->Connect();
      while (!stop.load()) {
        conn.ExecText(
            "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, created_at) "
            "VALUES (1, 'live.traffic', 'now', " +
                live_at +
                ") RETURNING id, created_at) "
                "INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
                "SELECT id, 1, 'push', created_at FROM n",
            {});
        conn.ExecText(
            "UPDATE chopar.deliveries SET attempts = attempts + 1 "
            "WHERE channel = 'push' AND status = 'queued'",
            {});
        ++writes;
      }
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
  });
  while (writes.load() < 20) std::this_thread::sleep_for(1ms);

  clock.Set(cutover_ + 2 * kWeek + 2h);
  RetentionSettings settings;
  settings.deliveries_days = 7;
  HistoryMaintenance retention(*pool_, clock, metrics_, settings);
  std::vector<std::string> dropped;
  for (int attempt = 0; attempt < 5 && dropped.size() < 4; ++attempt) {
    try {
      for (auto& name : retention.RunOnce().dropped) dropped.push_back(name);
    } catch (const db::LockNotAvailable&) {
    }
  }
  const int writes_during = writes.load();
  while (writes.load() < writes_during + 20 && writer_error.empty()) {
    std::this_thread::sleep_for(1ms);
  }
  stop = true;
  writer.join();
  EXPECT_EQ(writer_error, "");
  EXPECT_EQ(dropped.size(), 4u);
  EXPECT_EQ(Rows("chopar.deliveries", cutover_, cutover_ + kWeek), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"), 2);
  EXPECT_GT(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'push'"), 20);
}

}  // namespace
}  // namespace chopar::retention
