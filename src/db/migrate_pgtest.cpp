// Migrations on real PostgreSQL: several processes starting at once, a table
// lock held by a long transaction, and index builds that must not run in a
// transaction.

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "db/errors.hpp"
#include "db/migrate.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::TestDatabase;

class MigrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  }
};

TEST_F(MigrateTest, TwoProcessesMigratingAFreshDatabaseAtOnceBothSucceed) {
  TestDatabase fresh(TestDatabase::Contents::kEmpty);
  constexpr int kProcesses = 3;
  std::vector<std::future<int>> applied;
  std::vector<Connection> sessions;
  for (int i = 0; i < kProcesses; ++i) sessions.push_back(fresh.Connect());
  for (auto& session : sessions) {
    applied.push_back(std::async(std::launch::async, [&session] { return Migrate(session); }));
  }
  int total = 0;
  for (auto& result : applied) ASSERT_NO_THROW(total += result.get());
  const auto all = static_cast<std::int64_t>(EmbeddedMigrations().size());
  EXPECT_EQ(total, all) << "each migration applied once, by one of them";
  EXPECT_EQ(fresh.Count("SELECT count(*) FROM chopar.schema_migrations"), all);
  // Their sessions are left as they were.
  EXPECT_EQ(sessions[0].ExecText("SHOW statement_timeout", {}).String(0, 0), "1min");
  EXPECT_EQ(sessions[0].ExecText("SHOW lock_timeout", {}).String(0, 0), "0");
}

class MigrateOnDatabaseTest : public MigrateTest {
 protected:
  void SetUp() override {
    MigrateTest::SetUp();
    if (IsSkipped()) return;
    db_ = std::make_unique<TestDatabase>();
  }
  // A transaction on its own session that reads chopar.users and stays open:
  // a report, a slow request, a forgotten psql.
  Connection HoldUsersTable() {
    Connection holder = db_->Connect();
    holder.ExecScript("BEGIN; SELECT count(*) FROM chopar.users");
    return holder;
  }
  std::unique_ptr<TestDatabase> db_;
};

const Migration kAddColumn{9001, "9001_test_add_column",
                           "ALTER TABLE chopar.users ADD COLUMN test_nickname text"};

TEST_F(MigrateOnDatabaseTest, MigrationThatCannotGetItsLockGivesUpInsteadOfQueueingForever) {
  Connection holder = HoldUsersTable();
  Connection migrator = db_->Connect();
  const MigrateOptions options{milliseconds(200), 3, milliseconds(100)};

  auto migrating = std::async(
      std::launch::async, [&] { return Migrate(migrator, std::span(&kAddColumn, 1), options); });
  std::this_thread::sleep_for(milliseconds(100));
  // While the migration waits for its lock, every statement on the table
  // queues behind it: that wait must stay short.
  Connection reader = db_->Connect();
  reader.ExecScript("SET statement_timeout = 3000");
  EXPECT_NO_THROW(reader.ExecText("SELECT count(*) FROM chopar.users", {}))
      << "a reader was stuck behind the migration's lock wait";

  const bool gave_up = migrating.wait_for(seconds(10)) == std::future_status::ready;
  if (!gave_up) holder.ExecScript("ROLLBACK");  // lets it finish, so the test ends
  ASSERT_TRUE(gave_up) << "the migration waited behind the open transaction with no limit";
  try {
    migrating.get();
    ADD_FAILURE() << "the migration was applied while the table was held";
  } catch (const LockNotAvailable& e) {
    EXPECT_NE(std::string(e.what()).find("9001_test_add_column could not take its locks"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.schema_migrations WHERE version = 9001"), 0);
  holder.ExecScript("ROLLBACK");
}

TEST_F(MigrateOnDatabaseTest, MigrationTriesAgainUntilTheLockIsFree) {
  Connection holder = HoldUsersTable();
  Connection migrator = db_->Connect();
  const MigrateOptions options{milliseconds(100), 50, milliseconds(50)};
  auto migrating = std::async(
      std::launch::async, [&] { return Migrate(migrator, std::span(&kAddColumn, 1), options); });
  std::this_thread::sleep_for(milliseconds(500));  // a few tries fail meanwhile
  holder.ExecScript("COMMIT");

  EXPECT_EQ(migrating.get(), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM information_schema.columns "
                       "WHERE table_name = 'users' AND column_name = 'test_nickname'"),
            1);
}

TEST_F(MigrateOnDatabaseTest, IndexIsBuiltConcurrentlyOutsideATransaction) {
  const Migration concurrent{
      9002, "9002_test_concurrent_index",
      "-- migrate: no transaction\n"
      "-- Safe to run again from its start: a failed build leaves an invalid index.\n"
      "DROP INDEX CONCURRENTLY IF EXISTS chopar.users_test_locale;\n"
      "CREATE INDEX CONCURRENTLY users_test_locale ON chopar.users (locale);\n"};
  // Concurrent builds wait for older transactions but block no one's writes.
  Connection writer = db_->Connect();
  writer.ExecScript("INSERT INTO chopar.users (id) VALUES (1)");
  Connection migrator = db_->Connect();

  EXPECT_EQ(Migrate(migrator, std::span(&concurrent, 1)), 1);

  EXPECT_EQ(db_->Scalar("SELECT indisvalid::text FROM pg_index "
                        "WHERE indexrelid = 'chopar.users_test_locale'::regclass"),
            "true");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.schema_migrations WHERE version = 9002"), 1);
  EXPECT_EQ(Migrate(migrator, std::span(&concurrent, 1)), 0) << "recorded: not run again";
}

}  // namespace
}  // namespace chopar::db
