// The read router and the write LSN on one real server (a standby of it is
// tests/read_standbys_pgtest.cpp's): the LSN a commit fetches rides in the
// COMMIT's round trip, nothing is sent without a capturing scope, a read URL
// whose server is not in recovery is read from, and one that does not
// answer sends every read to the primary.

#include <gtest/gtest.h>

#include "db/lsn.hpp"
#include "db/read_router.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

constexpr Query kAddUser{"test.rr.add_user", "INSERT INTO chopar.users (id, email) VALUES ($1, $2)",
                         Plan::kAny};
constexpr Query kCountUsers{"test.rr.count_users", "SELECT count(*) FROM chopar.users", Plan::kAny};

class ReadRouterTest : public testing::PgTest {
 protected:
  Lsn PrimaryLsn() {
    return static_cast<Lsn>(
        pool_->Acquire()
            ->ExecText("SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint", {})
            .Int(0, 0));
  }
};

// Round trips of `body` on a pool of one connection, every statement
// (and the LSN's) prepared beforehand.
template <typename Body>
std::uint64_t RoundTripsOf(Pool& pool, Body body) {
  {
    ReadYourWritesScope warm(std::nullopt, /*capture=*/true);
    {
      auto tx = pool.Begin("prepare");
      tx.Exec(kCountUsers);
      tx.ExecAndCommit(kCountUsers, {});
    }
    auto other = pool.Begin("prepare_commit");
    other.ExecText("DELETE FROM chopar.users WHERE id = 1000");
    other.Exec(kAddUser, 1000, "warm@b.uz");
    other.Commit();
  }
  const std::uint64_t before = pool.Acquire()->round_trips();
  body();
  return pool.Acquire()->round_trips() - before;
}

TEST_F(ReadRouterTest, ACommitFetchesItsLsnInItsOwnRoundTripOnlyWhenAsked) {
  Pool pool(db_->url(), 1);
  (void)RoundTripsOf(pool, [] {});
  for (const bool capture : {false, true}) {
    const Lsn before = PrimaryLsn();
    std::optional<Lsn> written;
    const std::uint64_t trips = RoundTripsOf(pool, [&] {
      ReadYourWritesScope scope(std::nullopt, capture);
      auto tx = pool.Begin("add");
      tx.Exec(kAddUser, capture ? 2 : 1, "a@b.uz");
      EXPECT_EQ(tx.ExecAndCommit(kCountUsers, {}).Int(0, 0), capture ? 3 : 2);
      written = scope.written();
    });
    // BEGIN + insert, then count + COMMIT (+ the LSN): two either way.
    EXPECT_EQ(trips, 2u) << capture;
    EXPECT_EQ(written.has_value(), capture);
    if (written) {
      EXPECT_GT(*written, before);
      EXPECT_LE(*written, PrimaryLsn());
    }
  }
  // Commit() too: the LSN goes with its COMMIT.
  const Lsn before = PrimaryLsn();
  std::optional<Lsn> written;
  EXPECT_EQ(RoundTripsOf(pool,
                         [&] {
                           ReadYourWritesScope scope(std::nullopt, true);
                           auto tx = pool.Begin("add");
                           tx.Exec(kAddUser, 3, "c@d.uz");
                           tx.Commit();
                           written = scope.written();
                         }),
            2u);
  ASSERT_TRUE(written);
  EXPECT_GT(*written, before);
}

TEST_F(ReadRouterTest, ReadsGoToAServerThatAnswersAndToThePrimaryWhenItDoesNot) {
  core::MetricsRegistry metrics;
  PoolSettings well;
  well.conninfo = db_->url();
  well.size = 2;
  PoolSettings gone;
  gone.conninfo = "host=/nonexistent dbname=nothing connect_timeout=2";
  gone.size = 2;
  ReadRouter router(*pool_, {.standbys = {well, gone}}, metrics);
  // The first is the same server (not in recovery: every commit is
  // there), the second does not answer: every read goes to the first,
  // whatever LSN it carries.
  for (int i = 0; i < 4; ++i) {
    ReadYourWritesScope scope(PrimaryLsn(), false);
    EXPECT_EQ(router.Read([](Pool& pool) { return pool.Acquire()->Exec(kCountUsers).Int(0, 0); }),
              0);  // a fresh database: no user
  }
  const std::string page = metrics.Render();
  EXPECT_NE(page.find("chopar_reads_total{target=\"standby_1\"} 4"), std::string::npos) << page;
  EXPECT_NE(page.find("chopar_read_standby_up{standby=\"2\"} 0"), std::string::npos) << page;
  EXPECT_NE(page.find("chopar_read_standby_lag_seconds{standby=\"1\"} 0"), std::string::npos)
      << page;

  // None that answers: the primary, counted as down.
  ReadRouter alone(*pool_, {.standbys = {gone}}, metrics);
  EXPECT_EQ(alone.Read([](Pool& pool) { return pool.Acquire()->Exec(kCountUsers).Int(0, 0); }), 0);
  const std::string after = metrics.Render();
  EXPECT_NE(after.find("chopar_reads_total{target=\"primary\"} 1"), std::string::npos) << after;
  EXPECT_NE(after.find("chopar_read_fallbacks_total{reason=\"down\"} 1"), std::string::npos)
      << after;
}

TEST_F(ReadRouterTest, ReadsAreSpreadOverTheStandbysThatAreWell) {
  core::MetricsRegistry metrics;
  PoolSettings well;
  well.conninfo = db_->url();
  well.size = 2;
  ReadRouter router(*pool_, {.standbys = {well, well, well}}, metrics);
  for (int i = 0; i < 30; ++i) {
    router.Read([](Pool& pool) { return pool.Acquire()->Exec(kCountUsers).Int(0, 0); });
  }
  const std::string page = metrics.Render();
  for (const char* standby : {"standby_1", "standby_2", "standby_3"}) {
    EXPECT_NE(page.find("chopar_reads_total{target=\"" + std::string(standby) + "\"} 10"),
              std::string::npos)
        << standby << "\n"
        << page;
  }
}

}  // namespace
}  // namespace chopar::db
