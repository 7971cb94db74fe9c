// Migrations 0017 (deliveries, sink_messages) and 0020 (notifications)
// converting an existing database in place, and every migration since the
// layout of release 946804a (0023 on) applied to such a database with its
// history: a database migrated up to the
// migration before and filled with history (CHOPAR_TEST_CONVERSION_ROWS
// notifications, each with a delivery and a sink message: 20000 in
// `make test`, 1000000 in `make history-conversion`) is migrated while a
// writer inserts and reads deliveries without pause. No row is copied (the
// old table's file becomes the first partition), nothing is lost, ids go on
// from where they were, and the writer is never held up for long: the
// longest of its round trips bounds how long the exclusive lock was held.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "db/migrate.hpp"
#include "testing/test_database.hpp"

namespace chopar::retention {
namespace {

using Clock = std::chrono::steady_clock;
using chopar::testing::TestDatabase;

constexpr int kPartitionedHistoryVersion = 17;
constexpr int kPartitionedNotificationsVersion = 20;
// The first migration a database of the 946804a layout (0001–0022) has not run.
constexpr int kAfter946804aVersion = 23;
constexpr int kLegacyPartitionKeysVersion = 29;
constexpr int kNotificationsCreatedBrinVersion = 38;

long RowsToConvert() {
  const char* value = std::getenv("CHOPAR_TEST_CONVERSION_ROWS");
  return value != nullptr && *value != '\0' ? std::atol(value) : 20000;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// What the writer saw while a migration ran.
struct WriterRun {
  double migrate_seconds = 0;
  Clock::duration longest{};  // the writer's longest round trip
  long writes = 0;            // notifications with a delivery it wrote ('sms')
  std::string error;
};

// Applies `migrations` while a writer inserts a notification with its
// delivery, then reads both back by id, again and again, and keeps its
// longest round trip: it bounds how long any exclusive lock was held.
WriterRun MigrateBesideWriter(TestDatabase& db, std::span<const db::Migration> migrations) {
  db::Connection conn = db.Connect();
  std::atomic<bool> stop{false};
  std::atomic<long> writes{0};
  WriterRun run;
  std::thread writer([&] {
    try {
      db::Connection live = db.Connect();
      while (!stop.load()) {
        const auto started = Clock::now();
        const db::Result ids = live.ExecText(
            "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) "
            "VALUES (1, 'history.live', 'n') RETURNING id) "
            "INSERT INTO chopar.deliveries (notification_id, user_id, channel) "
            "SELECT id, 1, 'sms' FROM n RETURNING id, notification_id",
            {});
        live.ExecText("SELECT status FROM chopar.deliveries WHERE id = $1::bigint",
                      db::Params(ids.String(0, 0)));
        live.ExecText("SELECT title FROM chopar.notifications WHERE id = $1::bigint",
                      db::Params(ids.String(0, 1)));
        run.longest = std::max(run.longest, Clock::now() - started);
        ++writes;
      }
    } catch (const std::exception& e) {
      run.error = e.what();
    }
  });
  while (writes.load() < 10 && run.error.empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto migrate_started = Clock::now();
  try {
    EXPECT_EQ(db::Migrate(conn, migrations), static_cast<int>(migrations.size()));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the migration failed: " << e.what();  // the writer still stops
  }
  run.migrate_seconds = Seconds(Clock::now() - migrate_started);
  const long writes_before_stop = writes.load();
  while (writes.load() < writes_before_stop + 10 && run.error.empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop = true;
  writer.join();
  run.writes = writes.load();
  return run;
}

void Report(const std::string& migration, long rows, double fill_seconds, const WriterRun& run) {
  std::cout << "history conversion: " << rows << " rows filled in " << fill_seconds
            << " s; migration " << migration << " took " << run.migrate_seconds
            << " s; the writer's longest round trip during it (the exclusive lock held at most): "
            << Seconds(run.longest) * 1000 << " ms over " << run.writes << " writes\n";
  ::testing::Test::RecordProperty("rows", std::to_string(rows));
  ::testing::Test::RecordProperty("migration_seconds", std::to_string(run.migrate_seconds));
  ::testing::Test::RecordProperty("longest_write_ms", std::to_string(Seconds(run.longest) * 1000));
}

// 1000 users and `rows` notifications of theirs, 5 s apart back from now
// (every tenth with a dedup key when asked), each with a sent delivery.
void FillHistory(db::Connection& conn, long rows, bool every_tenth_keyed) {
  // A million rows take longer than a statement may in a test session.
  conn.ExecScript(
      "SET statement_timeout = 0;"
      "INSERT INTO chopar.users (id) SELECT g FROM generate_series(1, 1000) g;"
      "INSERT INTO chopar.notifications (user_id, type, title, dedup_key, created_at) "
      "SELECT 1 + g % 1000, 'history.old', 'n', "
      "CASE WHEN " +
      std::string(every_tenth_keyed ? "g % 10 = 0" : "false") +
      " THEN 'k' || g END, now() - make_interval(secs => g * 5) FROM generate_series(1, " +
      std::to_string(rows) +
      ") g;"
      "INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, attempts, "
      "claimed_at, sent_at, created_at, updated_at) "
      "SELECT id, user_id, 'email', 'sent', 1, created_at, created_at, created_at, created_at "
      "FROM chopar.notifications");
}

// A sink message for each delivery of the history, then fresh statistics.
void AddSinkRows(db::Connection& conn) {
  conn.ExecScript(
      "INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, created_at) "
      "SELECT id, 'email', user_id, created_at FROM chopar.deliveries;"
      "ANALYZE");
}

// The migrations before `version`, and `version` itself.
std::pair<std::span<const db::Migration>, std::span<const db::Migration>> SplitAt(
    std::span<const db::Migration> all, int version) {
  const auto at = std::find_if(all.begin(), all.end(),
                               [&](const db::Migration& m) { return m.version >= version; });
  EXPECT_NE(at, all.end());
  return {std::span(all.begin(), at), std::span(at, std::next(at))};
}

TEST(HistoryConversion, ConvertsInPlaceBesideLiveTraffic) {
  if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  TestDatabase db(TestDatabase::Contents::kEmpty);
  db::Connection conn = db.Connect();
  const auto [before, conversion] = SplitAt(db::EmbeddedMigrations(), kPartitionedHistoryVersion);
  db::Migrate(conn, before);

  const long rows = RowsToConvert();
  const auto fill_started = Clock::now();
  FillHistory(conn, rows, /*every_tenth_keyed=*/false);
  AddSinkRows(conn);
  const double fill_seconds = Seconds(Clock::now() - fill_started);
  const std::string file_before = db.Scalar(
      "SELECT pg_relation_filenode('chopar.deliveries') || ',' || "
      "pg_relation_filenode('chopar.sink_messages')");
  const long max_id_before = db.Count("SELECT max(id) FROM chopar.deliveries");

  // Only the conversion: later migrations are not what is measured.
  const WriterRun run = MigrateBesideWriter(db, conversion);

  EXPECT_EQ(run.error, "");
  EXPECT_EQ(db.Scalar("SELECT relkind FROM pg_class WHERE oid = 'chopar.deliveries'::regclass"),
            "p");
  // The old tables' files are the first partitions: nothing was copied.
  EXPECT_EQ(db.Scalar("SELECT pg_relation_filenode('chopar.deliveries_legacy') || ',' || "
                      "pg_relation_filenode('chopar.sink_messages_legacy')"),
            file_before);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.sink_messages"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'sms'"), run.writes);
  // Ids go on from the old table's sequence.
  EXPECT_GT(db.Count("SELECT min(id) FROM chopar.deliveries WHERE channel = 'sms'"), rows);
  EXPECT_GT(db.Count("SELECT max(id) FROM chopar.deliveries"), max_id_before);
  // The migration's exclusive lock is a catalog change, not a scan: a
  // writer waits at most for a lock request that gives up after 2 s
  // (lock_timeout) and then for that change (generous, on a loaded machine).
  EXPECT_LT(Seconds(run.longest), 5.0);
  Report("0017", rows, fill_seconds, run);
}

// 0020 on a database with history: every tenth notification has a dedup
// key, each has a delivery, some are in a digest, and a delayed
// notification holds a key.
TEST(HistoryConversion, ConvertsNotificationsInPlaceBesideLiveTraffic) {
  if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  TestDatabase db(TestDatabase::Contents::kEmpty);
  db::Connection conn = db.Connect();
  const auto [before, conversion] =
      SplitAt(db::EmbeddedMigrations(), kPartitionedNotificationsVersion);
  db::Migrate(conn, before);

  const long rows = RowsToConvert();
  const auto fill_started = Clock::now();
  FillHistory(conn, rows, /*every_tenth_keyed=*/true);
  conn.ExecScript(
      "INSERT INTO chopar.digests (id, user_id, type, key, status, opened_at, closes_at, "
      "item_count, closed_at) OVERRIDING SYSTEM VALUE "
      "VALUES (1, 2, 'history.old', '', 'closed', now() - interval '1 day', now(), 1, now());"
      "INSERT INTO chopar.digest_items (digest_id, notification_id, channels) "
      "SELECT 1, min(id), '{email}' FROM chopar.notifications WHERE user_id = 2;"
      "INSERT INTO chopar.delayed_notifications (notification_id, user_id, due_at, request, "
      "dedup_key) VALUES (nextval(pg_get_serial_sequence('chopar.notifications', 'id')), 3, "
      "now() + interval '1 day', '{}', 'later');"
      "ANALYZE");
  const double fill_seconds = Seconds(Clock::now() - fill_started);
  const std::string file_before = db.Scalar("SELECT pg_relation_filenode('chopar.notifications')");
  const long max_id_before = db.Count("SELECT max(id) FROM chopar.notifications");

  const WriterRun run = MigrateBesideWriter(db, conversion);

  EXPECT_EQ(run.error, "");
  EXPECT_EQ(db.Scalar("SELECT relkind FROM pg_class WHERE oid = 'chopar.notifications'::regclass"),
            "p");
  EXPECT_EQ(db.Scalar("SELECT pg_relation_filenode('chopar.notifications_legacy')"), file_before);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notifications WHERE type = 'history.old'"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notifications WHERE type = 'history.live'"),
            run.writes);
  EXPECT_GT(db.Count("SELECT min(id) FROM chopar.notifications WHERE type = 'history.live'"),
            max_id_before);
  // Every key is in the dedup table with its notification (the delayed
  // one's with its drawn id), and no foreign key is left into notifications.
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notification_dedup"), rows / 10 + 1);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notifications n "
                     "JOIN chopar.notification_dedup k ON k.notification_id = n.id "
                     "AND k.user_id = n.user_id AND k.dedup_key = n.dedup_key"),
            rows / 10);
  EXPECT_EQ(db.Count("SELECT count(*) FROM pg_constraint "
                     "WHERE confrelid = 'chopar.notifications'::regclass"),
            0);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.digest_items"), 1);
  EXPECT_LT(Seconds(run.longest), 5.0);
  Report("0020", rows, fill_seconds, run);
}

// A database of the 946804a layout, with history, brought to this build's
// schema while the writer runs: every later migration must be a catalog
// change (a constant default, a CHECK NOT VALID, an index built
// CONCURRENTLY), never a rewrite or a scan under an exclusive lock.
TEST(HistoryConversion, UpgradesThe946804aLayoutBesideLiveTraffic) {
  if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  TestDatabase db(TestDatabase::Contents::kEmpty);
  db::Connection conn = db.Connect();
  const std::span<const db::Migration> all = db::EmbeddedMigrations();
  const auto first_later = std::find_if(all.begin(), all.end(), [](const db::Migration& m) {
    return m.version >= kAfter946804aVersion;
  });
  ASSERT_NE(first_later, all.end());
  db::Migrate(conn, std::span(all.begin(), first_later));

  const long rows = RowsToConvert();
  const auto fill_started = Clock::now();
  FillHistory(conn, rows, /*every_tenth_keyed=*/true);
  AddSinkRows(conn);
  const double fill_seconds = Seconds(Clock::now() - fill_started);

  const WriterRun run = MigrateBesideWriter(db, std::span(first_later, all.end()));

  EXPECT_EQ(run.error, "");
  EXPECT_EQ(db.Count("SELECT max(version) FROM chopar.schema_migrations"), all.back().version);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notifications WHERE type = 'history.old'"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'sms'"), run.writes);
  // 0029: the first partitions keep only the partitioned tables' keys, and
  // the (id, created_at) key is their replica identity.
  EXPECT_EQ(db.Scalar("SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint "
                      "WHERE conrelid IN ('chopar.notifications_legacy'::regclass, "
                      "'chopar.deliveries_legacy'::regclass, "
                      "'chopar.sink_messages_legacy'::regclass) AND contype IN ('p', 'u')"),
            "deliveries_notification_id_channel_key_by_time,deliveries_pkey_by_time,"
            "notifications_pkey_by_time,sink_messages_pkey_by_time");
  EXPECT_EQ(db.Scalar("SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_index i "
                      "JOIN pg_class c ON c.oid = i.indexrelid "
                      "WHERE i.indisreplident AND i.indrelid IN ("
                      "'chopar.notifications_legacy'::regclass, "
                      "'chopar.deliveries_legacy'::regclass, "
                      "'chopar.sink_messages_legacy'::regclass)"),
            "deliveries_pkey_by_time,notifications_pkey_by_time,sink_messages_pkey_by_time");
  // Safe to run again from its top.
  const auto legacy_keys = std::find_if(all.begin(), all.end(), [](const db::Migration& m) {
    return m.version == kLegacyPartitionKeysVersion;
  });
  ASSERT_NE(legacy_keys, all.end());
  EXPECT_NO_THROW(db.Connect().ExecScript(legacy_keys->sql));
  // 0038: notifications_created is BRIN, valid, on every partition.
  EXPECT_EQ(db.Scalar("SELECT a.amname || ' ' || i.indisvalid FROM pg_index i "
                      "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                      "WHERE i.indexrelid = 'chopar.notifications_created'::regclass"),
            "brin true");
  EXPECT_EQ(
      db.Count("SELECT count(*) FROM pg_inherits "
               "WHERE inhparent = 'chopar.notifications_created'::regclass"),
      db.Count("SELECT count(*) FROM pg_partition_tree('chopar.notifications') WHERE isleaf"));
  const auto created_brin = std::find_if(all.begin(), all.end(), [](const db::Migration& m) {
    return m.version == kNotificationsCreatedBrinVersion;
  });
  ASSERT_NE(created_brin, all.end());
  EXPECT_NO_THROW(db.Connect().ExecScript(created_brin->sql));
  EXPECT_EQ(db.Count("SELECT count(*) FROM pg_class WHERE relname = 'notifications_created_brin'"),
            0);
  EXPECT_LT(Seconds(run.longest), 5.0);
  Report("0023-" + std::to_string(all.back().version), rows, fill_seconds, run);
}

}  // namespace
}  // namespace chopar::retention
