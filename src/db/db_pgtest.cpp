#include <gtest/gtest.h>

#include <thread>

#include "db/errors.hpp"
#include "db/migrate.hpp"
#include "db/pool.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

using testing::PgTest;

constexpr Query kInsertUser{"test.insert_user", "INSERT INTO users (id, email) VALUES ($1, $2)"};
constexpr Query kCountUsers{"test.count_users", "SELECT count(*) FROM users"};

class DbTest : public PgTest {};

TEST_F(DbTest, TransactionRollsBackUnlessCommitted) {
  {
    auto tx = pool_->Begin("test_rollback");
    tx.Exec(kInsertUser, 1, "a@b.uz");
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 0);
  {
    auto tx = pool_->Begin("test_commit");
    tx.Exec(kInsertUser, 1, "a@b.uz");
    tx.Commit();
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 1);
}

TEST_F(DbTest, ConstraintViolationsAreTyped) {
  auto conn = pool_->Acquire();
  conn->Exec(kInsertUser, 1, "a@b.uz");
  EXPECT_THROW(conn->Exec(kInsertUser, 1, "c@d.uz"), UniqueViolation);
  EXPECT_THROW(conn->Exec(kInsertUser, 2, "not-an-email"), CheckViolation);
  EXPECT_EQ(conn->Exec(kCountUsers).Int(0, 0), 1);
}

TEST_F(DbTest, LinkCheckRefusesExternalLinksInTheDatabaseItself) {
  auto conn = pool_->Acquire();
  conn->Exec(kInsertUser, 1, std::nullopt);
  constexpr Query insert{"test.insert_link",
                         "INSERT INTO notifications (user_id, type, title, link) VALUES (1, 'a.b', 't', $1)"};
  for (const char* bad : {"https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)", "/"}) {
    EXPECT_THROW(conn->Exec(insert, bad), CheckViolation) << bad;
  }
  EXPECT_NO_THROW(conn->Exec(insert, "/tasks/1"));
}

TEST_F(DbTest, MigrateIsIdempotent) {
  auto conn = db_->Connect();
  EXPECT_EQ(Migrate(conn), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.schema_migrations"),
            static_cast<std::int64_t>(EmbeddedMigrations().size()));
}

TEST_F(DbTest, PoolReconnectsAfterConnectionIsKilled) {
  int pid = 0;
  {
    auto conn = pool_->Acquire();
    pid = static_cast<int>(conn->ExecText("SELECT pg_backend_pid()", {}).Int(0, 0));
  }
  db_->Scalar("SELECT pg_terminate_backend(" + std::to_string(pid) + ")");
  // The idle pooled connection is dead; Begin replaces it transparently.
  auto tx = pool_->Begin("after_restart");
  EXPECT_NE(tx.ExecText("SELECT pg_backend_pid()").Int(0, 0), pid);
}

TEST_F(DbTest, PoolWaitsForAFreeConnectionAndTimesOut) {
  Pool small(db_->url(), 1, std::chrono::milliseconds(200));
  auto held = small.Acquire();
  EXPECT_THROW(small.Acquire(), PoolTimeout);
}

TEST_F(DbTest, ListenReceivesNotify) {
  auto listener = db_->Connect();
  listener.Listen("chopar_test");
  db_->Scalar("SELECT pg_notify('chopar_test', 'hello')");
  std::vector<Notification> got;
  for (int i = 0; i < 50 && got.empty(); ++i) {
    got = listener.WaitForNotifications(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].payload, "hello");
}

}  // namespace
}  // namespace chopar::db
