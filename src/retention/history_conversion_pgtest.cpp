// Migration 0017 converting an existing database in place: a database
// migrated up to 0016 and filled with history (CHOPAR_TEST_CONVERSION_ROWS
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
#include <string>
#include <thread>
#include <vector>

#include "db/migrate.hpp"
#include "testing/test_database.hpp"

namespace chopar::retention {
namespace {

using Clock = std::chrono::steady_clock;
using chopar::testing::TestDatabase;

constexpr int kPartitionedHistoryVersion = 17;

long RowsToConvert() {
  const char* value = std::getenv("CHOPAR_TEST_CONVERSION_ROWS");
  return value != nullptr && *value != '\0' ? std::atol(value) : 20000;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

TEST(HistoryConversion, ConvertsInPlaceBesideLiveTraffic) {
  if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  TestDatabase db(TestDatabase::Contents::kEmpty);
  db::Connection conn = db.Connect();
  const auto all = db::EmbeddedMigrations();
  const auto before = std::find_if(all.begin(), all.end(), [](const db::Migration& m) {
    return m.version >= kPartitionedHistoryVersion;
  });
  ASSERT_NE(before, all.end());
  db::Migrate(conn, std::span(all.begin(), before));

  const long rows = RowsToConvert();
  const auto fill_started = Clock::now();
  // A million rows take longer than a statement may in a test session.
  conn.ExecScript(
      "SET statement_timeout = 0;"
      "INSERT INTO chopar.users (id) SELECT g FROM generate_series(1, 1000) g;"
      "INSERT INTO chopar.notifications (user_id, type, title, created_at) "
      "SELECT 1 + g % 1000, 'history.old', 'n', now() - make_interval(secs => g * 5) "
      "FROM generate_series(1, " +
      std::to_string(rows) +
      ") g;"
      "INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, attempts, "
      "claimed_at, sent_at, created_at, updated_at) "
      "SELECT id, user_id, 'email', 'sent', 1, created_at, created_at, created_at, created_at "
      "FROM chopar.notifications;"
      "INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, created_at) "
      "SELECT id, 'email', user_id, created_at FROM chopar.deliveries;"
      "ANALYZE");
  const double fill_seconds = Seconds(Clock::now() - fill_started);
  const std::string file_before = db.Scalar(
      "SELECT pg_relation_filenode('chopar.deliveries') || ',' || "
      "pg_relation_filenode('chopar.sink_messages')");
  const long max_id_before = db.Count("SELECT max(id) FROM chopar.deliveries");

  // The writer: a notification with its delivery, then that delivery read
  // back by id, again and again; the longest round trip is kept.
  std::atomic<bool> stop{false};
  std::atomic<long> writes{0};
  Clock::duration longest{};
  std::string writer_error;
  std::thread writer([&] {
    try {
      db::Connection live = db.Connect();
      while (!stop.load()) {
        const auto started = Clock::now();
        const std::string id = live.ExecText(
                                       "WITH n AS (INSERT INTO chopar.notifications (user_id, "
                                       "type, title) VALUES (1, 'history.live', 'n') RETURNING "
                                       "id) INSERT INTO chopar.deliveries (notification_id, "
                                       "user_id, channel) SELECT id, 1, 'sms' FROM n RETURNING id",
                                       {})
                                   .String(0, 0);
        live.ExecText("SELECT status FROM chopar.deliveries WHERE id = $1::bigint", db::Params(id));
        longest = std::max(longest, Clock::now() - started);
        ++writes;
      }
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
  });
  while (writes.load() < 10 && writer_error.empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));

  const auto migrate_started = Clock::now();
  // Only the conversion: later migrations are not what is measured.
  EXPECT_EQ(db::Migrate(conn, std::span(before, std::next(before))), 1);
  const double migrate_seconds = Seconds(Clock::now() - migrate_started);
  const long writes_before_stop = writes.load();
  while (writes.load() < writes_before_stop + 10 && writer_error.empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop = true;
  writer.join();

  EXPECT_EQ(writer_error, "");
  EXPECT_EQ(db.Scalar("SELECT relkind FROM pg_class WHERE oid = 'chopar.deliveries'::regclass"),
            "p");
  // The old tables' files are the first partitions: nothing was copied.
  EXPECT_EQ(db.Scalar("SELECT pg_relation_filenode('chopar.deliveries_legacy') || ',' || "
                      "pg_relation_filenode('chopar.sink_messages_legacy')"),
            file_before);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.sink_messages"), rows);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'sms'"),
            writes.load());
  // Ids go on from the old table's sequence.
  EXPECT_GT(db.Count("SELECT min(id) FROM chopar.deliveries WHERE channel = 'sms'"), rows);
  EXPECT_GT(db.Count("SELECT max(id) FROM chopar.deliveries"), max_id_before);
  // The migration's exclusive lock is a catalog change, not a scan: a
  // writer waits at most for a lock request that gives up after 2 s
  // (lock_timeout) and then for that change (generous, on a loaded machine).
  EXPECT_LT(Seconds(longest), 5.0);

  std::cout << "history conversion: " << rows << " rows filled in " << fill_seconds
            << " s; migration 0017 took " << migrate_seconds
            << " s; the writer's longest round trip during it (the exclusive lock held at most): "
            << Seconds(longest) * 1000 << " ms over " << writes.load() << " writes\n";
  ::testing::Test::RecordProperty("rows", std::to_string(rows));
  ::testing::Test::RecordProperty("migration_seconds", std::to_string(migrate_seconds));
  ::testing::Test::RecordProperty("longest_write_ms", std::to_string(Seconds(longest) * 1000));
}

}  // namespace
}  // namespace chopar::retention
