#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <set>
#include <thread>

#include "db/actor.hpp"
#include "db/errors.hpp"
#include "db/migrate.hpp"
#include "db/pool.hpp"
#include "db/session_settings.hpp"
#include "testing/pgbouncer.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

constexpr Query kInsertUser{"test.insert_user", "INSERT INTO users (id, email) VALUES ($1, $2)"};
constexpr Query kCountUsers{"test.count_users", "SELECT count(*) FROM users"};

class DbTest : public testing::PgTest {
 protected:
  // Users committed, as another session sees them.
  std::int64_t CommittedUsers() { return db_->Count("SELECT count(*) FROM chopar.users"); }
  // Waits until the test database has `n` sessions besides the asking one.
  bool WaitForBackends(int n) {
    for (int i = 0; i < 500; ++i) {
      if (db_->Count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                     "AND pid <> pg_backend_pid()") == n)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // ALTER DATABASE <the test's> SET `setting`: new sessions start with it.
  // READ WRITE: the session may be starting read-only by now.
  void SetDatabaseDefault(const std::string& setting) {
    db_->Connect().ExecScript(
        "BEGIN READ WRITE; DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET " + setting +
        "', current_database()); END $$; COMMIT");
  }
};

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

// Round trips a transaction takes on the pool's one connection (its
// statements prepared beforehand, so only the transaction's own count).
template <typename Body>
std::uint64_t RoundTripsOf(Pool& pool, Body body) {
  std::uint64_t before = 0;
  {
    auto conn = pool.Acquire();
    conn->Exec(kCountUsers);
    conn->ExecPipeline(std::vector<Statement>{{kInsertUser, Params(99, "x@y.uz")}});
    conn->ExecText("DELETE FROM users WHERE id = 99", {});
  }
  {
    // BEGIN and COMMIT prepared too.
    auto tx = pool.Begin("prepare");
    tx.ExecAndCommit(kCountUsers, {});
  }
  before = pool.Acquire()->round_trips();
  body();
  return pool.Acquire()->round_trips() - before;
}

TEST_F(DbTest, BeginTravelsWithTheTransactionsFirstStatements) {
  Pool pool(db_->url(), 1);
  // BEGIN + insert, then count + COMMIT: two round trips.
  EXPECT_EQ(RoundTripsOf(pool,
                         [&] {
                           auto tx = pool.Begin("two_trips");
                           tx.Exec(kInsertUser, 1, "a@b.uz");
                           EXPECT_EQ(tx.ExecAndCommit(kCountUsers, {}).Int(0, 0), 1);
                         }),
            2u);
  EXPECT_EQ(CommittedUsers(), 1);
  // A deferred statement goes in the same first round trip.
  EXPECT_EQ(RoundTripsOf(pool,
                         [&] {
                           auto tx = pool.Begin("deferred");
                           tx.Defer(kInsertUser, 2, "c@d.uz");
                           EXPECT_EQ(tx.Exec(kCountUsers).Int(0, 0), 2);
                         }),
            2u);  // BEGIN + insert + count, then ROLLBACK
  EXPECT_EQ(CommittedUsers(), 1);
  // Nothing run: nothing sent, nothing to roll back.
  EXPECT_EQ(RoundTripsOf(pool, [&] { pool.Begin("empty").Commit(); }), 0u);
  EXPECT_EQ(RoundTripsOf(pool, [&] { auto tx = pool.Begin("unused"); }), 0u);
  // Committing first: BEGIN alone, then the statement and COMMIT.
  EXPECT_EQ(RoundTripsOf(pool,
                         [&] {
                           auto tx = pool.Begin("commit_first");
                           tx.ExecAndCommit(kInsertUser, Params(3, "e@f.uz"));
                         }),
            2u);
  EXPECT_EQ(CommittedUsers(), 2);
}

TEST_F(DbTest, AFailedFirstStatementLeavesNoTransactionOpen) {
  Pool pool(db_->url(), 1);
  {
    auto tx = pool.Begin("fails");
    EXPECT_THROW(tx.Exec(kInsertUser, 1, "not-an-email"), CheckViolation);
  }
  auto conn = pool.Acquire();
  EXPECT_EQ(PQtransactionStatus(conn->raw()), PQTRANS_IDLE)
      << "the connection went back to the pool inside a transaction";
}

TEST_F(DbTest, AFirstRoundTripOnAConnectionTheServerClosedRunsOnAnother) {
  Pool pool(db_->url(), 1);
  int pid = 0;
  {
    auto conn = pool.Acquire();
    pid = static_cast<int>(conn->ExecText("SELECT pg_backend_pid()", {}).Int(0, 0));
  }
  // Borrowed alive (Begin sends nothing), closed by the server before the
  // transaction's first statement: as after a restart at that moment.
  auto tx = pool.Begin("killed_after_borrow");
  db_->Scalar("SELECT pg_terminate_backend(" + std::to_string(pid) + ")");
  ASSERT_TRUE(WaitForBackends(0));
  tx.Exec(kInsertUser, 1, "a@b.uz");
  EXPECT_NE(tx.ExecText("SELECT pg_backend_pid()").Int(0, 0), pid);
  tx.Commit();
  EXPECT_EQ(CommittedUsers(), 1);
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
  constexpr Query insert{
      "test.insert_link",
      "INSERT INTO notifications (user_id, type, title, link) VALUES (1, 'a.b', 't', $1)"};
  for (const char* bad :
       {"https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)", "/"}) {
    EXPECT_THROW(conn->Exec(insert, bad), CheckViolation) << bad;
  }
  EXPECT_NO_THROW(conn->Exec(insert, "/tasks/1"));
}

TEST_F(DbTest, PipelineRunsStatementsInOrderInOneGo) {
  auto conn = pool_->Acquire();
  const std::vector<Statement> statements = {{kInsertUser, Params(1, "a@b.uz")},
                                             {kInsertUser, Params(2, "c@d.uz")},
                                             {kCountUsers, Params()}};
  auto results = conn->ExecPipeline(statements);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].AffectedRows(), 1);
  EXPECT_EQ(results[2].Int(0, 0), 2);  // the count sees both inserts before it
  EXPECT_EQ(CommittedUsers(), 2);
}

// What ArrayLiteral writes, PostgreSQL reads back element for element.
TEST_F(DbTest, ArrayLiteralsRoundTripThroughPostgreSQL) {
  const std::vector<std::optional<std::string>> texts = {
      "plain", "",           R"(say "hi")", R"(C:\dir\)",           "{a,b}",
      "NULL",  std::nullopt, "x\ny",        std::string(3000, '"'), "Non olish — 18:00"};
  auto conn = pool_->Acquire();
  const auto r = conn->ExecText(
      "SELECT x IS NULL AS missing, coalesce(x, '') AS x FROM unnest($1::text[]) WITH ORDINALITY "
      "AS a(x, n) ORDER BY n",
      Params(ArrayLiteral(texts)));
  ASSERT_EQ(r.Rows(), static_cast<int>(texts.size()));
  for (int i = 0; i < r.Rows(); ++i) {
    const auto& expected = texts[static_cast<std::size_t>(i)];
    EXPECT_EQ(r.Text(i, "missing") == "t", !expected) << i;
    EXPECT_EQ(r.Text(i, "x"), expected.value_or("")) << i;
  }
}

TEST_F(DbTest, PipelineFailureIsTypedAndUndoesTheWholePipeline) {
  auto conn = pool_->Acquire();
  const std::vector<Statement> statements = {{kInsertUser, Params(1, "a@b.uz")},
                                             {kInsertUser, Params(2, "not-an-email")},
                                             {kInsertUser, Params(3, "e@f.uz")}};
  EXPECT_THROW(conn->ExecPipeline(statements), CheckViolation);
  // Outside a transaction the pipeline was one implicit transaction: the
  // insert before the failure is undone and the one after it never ran.
  EXPECT_EQ(CommittedUsers(), 0);
  // The connection is back in normal mode and usable.
  EXPECT_FALSE(conn->IsBroken());
  conn->Exec(kInsertUser, 4, "g@h.uz");
  EXPECT_EQ(conn->Exec(kCountUsers).Int(0, 0), 1);
}

TEST_F(DbTest, DeferredStatementsRunWithTheNextExecOrCommit) {
  {
    auto tx = pool_->Begin("test_defer");
    tx.Defer(kInsertUser, 1, "a@b.uz");
    tx.Defer(kInsertUser, 2, "c@d.uz");
    EXPECT_EQ(CommittedUsers(), 0);
    EXPECT_EQ(tx.Exec(kCountUsers).Int(0, 0), 2);
    tx.Defer(kInsertUser, 3, "e@f.uz");
    tx.Commit();
  }
  EXPECT_EQ(CommittedUsers(), 3);
}

TEST_F(DbTest, DeferredFailureSurfacesAtTheNextExecAndRollsBack) {
  {
    auto tx = pool_->Begin("test_defer_failure");
    tx.Exec(kInsertUser, 1, "a@b.uz");
    tx.Defer(kInsertUser, 1, "duplicate@b.uz");
    EXPECT_THROW(tx.Exec(kCountUsers), UniqueViolation);
  }
  EXPECT_EQ(CommittedUsers(), 0);
  {
    auto tx = pool_->Begin("test_defer_failure_at_commit");
    tx.Defer(kInsertUser, 2, "not-an-email");
    EXPECT_THROW(tx.Commit(), CheckViolation);
  }
  EXPECT_EQ(CommittedUsers(), 0);
  // The pool's connection is healthy afterwards.
  auto tx = pool_->Begin("after_failures");
  tx.Exec(kInsertUser, 3, "e@f.uz");
  tx.Commit();
  EXPECT_EQ(CommittedUsers(), 1);
}

TEST_F(DbTest, ExecTextRunsAfterTheDeferredStatements) {
  {
    auto tx = pool_->Begin("test_defer_then_text");
    tx.Defer(kInsertUser, 1, "a@b.uz");
    tx.ExecText("SAVEPOINT before_second");
    tx.Defer(kInsertUser, 2, "c@d.uz");
    // The second insert ran inside the savepoint, so rolling back to it
    // undoes only that one.
    tx.ExecText("ROLLBACK TO SAVEPOINT before_second");
    EXPECT_EQ(tx.ExecText("SELECT count(*) FROM chopar.users").Int(0, 0), 1);
    tx.Commit();
  }
  EXPECT_EQ(CommittedUsers(), 1);
}

TEST_F(DbTest, ExecAndCommitReturnsTheResultAndCommits) {
  {
    auto tx = pool_->Begin("test_exec_and_commit");
    tx.Defer(kInsertUser, 1, "a@b.uz");
    EXPECT_EQ(tx.ExecAndCommit(kCountUsers, Params()).Int(0, 0), 1);
  }
  EXPECT_EQ(CommittedUsers(), 1);
  {
    // A failing statement leaves the commit unrun: nothing of the
    // transaction stays.
    auto tx = pool_->Begin("test_exec_and_commit_failure");
    tx.Exec(kInsertUser, 2, "c@d.uz");
    EXPECT_THROW(tx.ExecAndCommit(kInsertUser, Params(1, "dup@b.uz")), UniqueViolation);
  }
  EXPECT_EQ(CommittedUsers(), 1);
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

TEST_F(DbTest, PoolReconnectsEveryIdleConnectionAfterTheServerClosedThemAll) {
  // Four idle connections, then every one of them closed by the server, as a
  // restart does.
  {
    std::vector<PooledConnection> held;
    for (int i = 0; i < 4; ++i) held.push_back(pool_->Acquire());
    for (auto& conn : held) conn->ExecText("SELECT 1", {});
  }
  db_->Scalar(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid()");
  ASSERT_TRUE(WaitForBackends(0));

  // Every caller gets a live connection at once, not a stale one.
  std::vector<Transaction> open;
  for (int i = 0; i < 4; ++i) {
    ASSERT_NO_THROW(open.push_back(pool_->Begin("after_restart"))) << "transaction " << i;
    EXPECT_EQ(open.back().ExecText("SELECT 1").Int(0, 0), 1);
  }
}

// A failover's other face: sessions still open to a server that takes no
// writes any more (a primary made read-only for its demotion). Here each
// idle connection's session is made read-only itself, as the server's
// default_transaction_read_only would after a reload.
TEST_F(DbTest, AServerFoundReadOnlyDropsEveryIdleConnectionAndTheTransactionRunsOnANewOne) {
  std::set<std::int64_t> old_pids;
  {
    std::vector<PooledConnection> held;
    for (int i = 0; i < 4; ++i) held.push_back(pool_->Acquire());
    for (auto& conn : held) {
      conn->ExecScript("SET default_transaction_read_only = on");
      old_pids.insert(conn->ExecText("SELECT pg_backend_pid()", {}).Int(0, 0));
    }
  }
  // The first round trip meets 25006 on a read-only session: nothing was
  // committed, so it is sent again on a new connection, and the pool drops
  // the other three rather than lend them one by one.
  auto tx = pool_->Begin("after_failover");
  tx.Exec(kInsertUser, 1, "a@b.uz");
  EXPECT_FALSE(old_pids.contains(tx.ExecText("SELECT pg_backend_pid()").Int(0, 0)));
  tx.Commit();
  EXPECT_EQ(CommittedUsers(), 1);
  std::vector<PooledConnection> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(pool_->Acquire());
    EXPECT_EQ(held.back()->ExecText("SHOW default_transaction_read_only", {}).Text(0, 0), "off")
        << "connection " << i << " is a read-only one the pool kept";
  }
}

TEST_F(DbTest, AServerThatTakesNoWritesFailsTheUnitOfWorkAsTransient) {
  // Every new session read-only: no primary to be found (the moment of a
  // failover between the old primary's demotion and the new one's promotion).
  SetDatabaseDefault("default_transaction_read_only = on");
  Pool pool(db_->url(), 2);
  try {
    auto tx = pool.Begin("no_primary");
    tx.Exec(kInsertUser, 1, "a@b.uz");
    tx.Commit();
    ADD_FAILURE() << "a write on a read-only server succeeded";
  } catch (const ServerReadOnly& e) {
    EXPECT_TRUE(IsTransient(e));
    EXPECT_EQ(e.sqlstate(), "25006");
  }
  // The broken connection was not kept: once writes are taken again, the
  // next transaction succeeds.
  SetDatabaseDefault("default_transaction_read_only = off");
  auto tx = pool.Begin("primary_back");
  tx.Exec(kInsertUser, 2, "b@b.uz");
  tx.Commit();
  EXPECT_EQ(CommittedUsers(), 1);
}

TEST_F(DbTest, ConninfoOptionsAreHonouredAndAStatementTimeoutCancels) {
  auto conn = Connection::Open(db_->url() + "&options=-c%20statement_timeout%3D300");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(conn.ExecText("SELECT pg_sleep(5)", {}), QueryCanceled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  // chopar's own session settings still hold.
  EXPECT_EQ(conn.ExecText("SHOW search_path", {}).String(0, 0), "chopar,public");
}

TEST_F(DbTest, SessionsRunUnderTheDefaultStatementTimeoutUnlessConfigured) {
  EXPECT_EQ(db_->Scalar("SHOW statement_timeout"), "1min");
  auto configured = Connection::Open(
      WithSessionSettings(db_->url(), {std::chrono::seconds(2), std::chrono::seconds(5)}));
  EXPECT_EQ(configured.ExecText("SHOW statement_timeout", {}).String(0, 0), "5s");
  Pool pool(WithSessionSettings(db_->url(), {std::chrono::seconds(2), std::chrono::seconds(0)}), 1);
  EXPECT_EQ(pool.Acquire()->ExecText("SHOW statement_timeout", {}).String(0, 0), "0");
}

TEST_F(DbTest, BehindATransactionPoolerEachTransactionSetsTheSessionSettingsItself) {
  auto conn = Connection::Open(db_->url(), {{"statement_timeout", "7000"}, {"chopar.test", "it's"}},
                               ServerPooling::kTransaction);
  // TimeZone is SET once (a pooler carries it); the rest per transaction.
  EXPECT_EQ(conn.ExecText("SHOW TimeZone", {}).String(0, 0), "UTC");
  conn.Begin();
  EXPECT_EQ(conn.ExecText("SHOW statement_timeout", {}).String(0, 0), "7s");
  EXPECT_EQ(conn.ExecText("SHOW jit", {}).String(0, 0), "off");
  EXPECT_EQ(conn.ExecText("SELECT current_setting('chopar.test')", {}).String(0, 0), "it's");
  conn.ExecScript("COMMIT");
  // SET LOCAL: nothing outlives the transaction on the server session.
  EXPECT_EQ(conn.ExecText("SELECT current_setting('chopar.test', true)", {}).String(0, 0), "");
}

TEST_F(DbTest, OpeningAConnectionToAServerThatNeverAnswersTimesOut) {
  // A socket that listens (the kernel completes the handshake) but never
  // answers the startup packet: a hung server, or a wrong port of a busy one.
  const int silent = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(silent, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(silent, 4), 0);
  socklen_t length = sizeof address;
  getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(ntohs(address.sin_port)) +
                               " dbname=chopar user=chopar";

  // On its own thread, detached if it hangs: a hang must fail the test, not block it.
  auto outcome = std::make_shared<std::promise<std::string>>();
  std::future<std::string> result = outcome->get_future();
  std::thread([conninfo, outcome] {
    try {
      Connection::Open(conninfo);
      outcome->set_value("connected");
    } catch (const ConnectionError& e) {
      outcome->set_value("ConnectionError");
    } catch (const std::exception& e) {
      outcome->set_value(e.what());
    }
  }).detach();
  ASSERT_EQ(result.wait_for(std::chrono::seconds(20)), std::future_status::ready)
      << "Connection::Open still waiting after 20 s";
  EXPECT_EQ(result.get(), "ConnectionError");
  close(silent);
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

namespace chopar::db {
namespace {

constexpr Query kActorSeen{"test.actor_seen",
                           "SELECT COALESCE(current_setting('chopar.actor', true), '') AS actor"};

// An ActorScope names its actor to every round trip of its thread, for the
// transaction that round trip is in, and adds no round trip; outside it,
// nothing is sent and no session keeps a stale actor.
TEST_F(DbTest, AnActorTravelsInTheSameRoundTripsAndEndsWithItsTransaction) {
  Pool pool(db_->url(), 1);
  EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), "");
  {
    // The connection prepares the statement that sets the actor once.
    const ActorScope actor(R"({"actor":"first"})");
    pool.Acquire()->Exec(kActorSeen);
  }
  std::uint64_t with_actor = RoundTripsOf(pool, [&] {
    const ActorScope actor(R"({"actor":"key:1"})");
    // Autocommit: the statement's own implicit transaction.
    EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), R"({"actor":"key:1"})");
    auto tx = pool.Begin("with_actor");
    tx.Exec(kInsertUser, 7, "a@b.uz");
    EXPECT_EQ(tx.ExecAndCommit(kActorSeen, {}).String(0, 0), R"({"actor":"key:1"})");
  });
  EXPECT_EQ(with_actor, 3u);  // the same as without an actor: 1 + 2
  {
    const ActorScope outer(R"({"actor":"outer"})");
    {
      const ActorScope inner(R"({"actor":"inner"})");
      EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), R"({"actor":"inner"})");
    }
    EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), R"({"actor":"outer"})");
    const ActorScope none("");
    EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), "");
  }
  // The same pooled connection, after the scope: LOCAL ended with each
  // transaction.
  EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), "");
}

// Behind a transaction-mode pooler the actor still reaches the statement:
// it travels in the statement's own transaction, never in the session.
TEST_F(DbTest, AnActorReachesTheStatementBehindATransactionPooler) {
  if (!testing::PgBouncer::Available()) GTEST_SKIP() << "pgbouncer is not installed";
  const auto dir = std::filesystem::temp_directory_path() /
                   ("chopar-actor-bouncer-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    testing::PgBouncer bouncer(dir);
    PoolSettings settings;
    settings.conninfo = bouncer.Url(db_->url());
    settings.pooling = ServerPooling::kTransaction;
    settings.size = 2;
    Pool pool(settings);
    {
      const ActorScope actor(R"({"actor":"key:9"})");
      EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), R"({"actor":"key:9"})");
      auto tx = pool.Begin("behind_the_pooler");
      EXPECT_EQ(tx.Exec(kActorSeen).String(0, 0), R"({"actor":"key:9"})");
      tx.Commit();
    }
    EXPECT_EQ(pool.Acquire()->Exec(kActorSeen).String(0, 0), "");
  }
  std::filesystem::remove_all(dir);
}

// Another thread's scope is not this thread's.
TEST_F(DbTest, AnActorIsItsThreadsOnly) {
  Pool pool(db_->url(), 2);
  const ActorScope actor(R"({"actor":"main"})");
  std::string seen_elsewhere = "unset";
  std::thread([&] { seen_elsewhere = pool.Acquire()->Exec(kActorSeen).String(0, 0); }).join();
  EXPECT_EQ(seen_elsewhere, "");
}

}  // namespace
}  // namespace chopar::db
