// The history maintenance of a `chopar worker` interrupted in the middle of
// its DDL (docs/operations.md, "Partitioned history"): the worker is killed
// with SIGKILL, or PostgreSQL crashes (`pg_ctl restart -m immediate`), while
// the pass has created a partition in its open transaction and waits to
// create the next one. Afterwards the loop completes: every missing week has
// its partition, no table is left half-made (created but not attached), and
// the rows written before are all there.
//
// The window is made wide deterministically: the test creates, in a
// transaction it keeps open, a table with the name of the second partition
// the pass will create, so the pass's CREATE TABLE waits for that
// transaction (up to the pass's 2 s lock_timeout, then again after its
// backoff); the fault strikes once the test sees the pass waiting while it
// holds a partition it created.

#include <gtest/gtest.h>

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "../blackbox_support.hpp"
#include "db/connection.hpp"
#include "testing/test_server.hpp"

namespace chopar {
namespace {

using namespace std::chrono_literals;
using testing::TestServer;
using testing::WaitUntil;

constexpr const char* kApiKey = "history-faults-key";

class HistoryFaults : public testing::DatabaseBlackBox {
 protected:
  void SetUp() override {
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    if (!TestServer::Available()) {
      GTEST_SKIP() << "needs scripts/with-test-pg (CHOPAR_TEST_PG_DATA and friends)";
    }
    TestServer::KeepCommitsThroughCrashes(db_->url());
    // History of this week: a notification with a delivery and its sink
    // message, which every fault must leave in place.
    db_->Scalar("INSERT INTO chopar.users (id) VALUES (1)");
    db_->Scalar(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) "
        "VALUES (1, 'history.kept', 'before the fault') RETURNING id, created_at), "
        "d AS (INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
        "SELECT id, 1, 'email', created_at FROM n RETURNING id, created_at) "
        "INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, created_at) "
        "SELECT id, 'email', 1, created_at FROM d");
    // The two newest weeks of each history table go (they are empty), so
    // the next pass has partitions to create; the name of the newest one of
    // deliveries is what the blocking transaction takes.
    for (const char* table : {"deliveries", "sink_messages"}) {
      for (int newest = 0; newest < 2; ++newest) {
        removed_.push_back(
            db_->Scalar(std::string("SELECT c.relname FROM chopar.history_partitions("
                                    "'chopar.") +
                        table +
                        "') p JOIN pg_class c ON c.oid = p.partition "
                        "ORDER BY p.upper_bound DESC LIMIT 1"));
        db_->Scalar("DROP TABLE chopar." + removed_.back());
      }
    }
  }

  std::unique_ptr<testing::ChildProcess> StartWorker(const std::string& log) {
    return Start("worker", testing::FreeLoopbackPort(), DatabaseEnv(kApiKey), log);
  }

  // Opens a transaction on `conn` that creates (and keeps uncommitted) a
  // table named like the newest partition of deliveries the pass will make.
  void BlockTheSecondPartition(db::Connection& conn) {
    conn.ExecText("BEGIN", {});
    conn.ExecText("CREATE TABLE chopar." + removed_.front() + " (blocking integer)", {});
  }

  // The backend of the pass once it waits for the blocking transaction
  // while holding, uncommitted, a partition it created (an ACCESS EXCLUSIVE
  // lock on a relation this session cannot see yet); nullopt until then.
  std::optional<std::int64_t> PassWaitingMidDdl() {
    const std::string pid = db_->Scalar(
        "SELECT coalesce(min(a.pid), 0) FROM pg_stat_activity a "
        "JOIN pg_locks w ON w.pid = a.pid AND NOT w.granted "
        "WHERE a.datname = current_database() AND a.query LIKE '%create_history_partitions%' "
        "AND EXISTS (SELECT FROM pg_locks l WHERE l.pid = a.pid AND l.granted "
        "  AND l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock' "
        "  AND NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = l.relation))");
    if (pid == "0") return std::nullopt;
    return std::stoll(pid);
  }

  bool BackendGone(std::int64_t pid) {
    return db_->Count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + std::to_string(pid)) ==
           0;
  }

  // Tables of chopar named like a history partition that are not attached
  // to their table: a half-made partition.
  std::int64_t DetachedPartitionTables() {
    return db_->Count(
        "SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'chopar'::regnamespace "
        "AND c.relkind IN ('r', 'p') AND c.relname ~ '^(deliveries|sink_messages)_p[0-9]{8}$' "
        "AND NOT c.relispartition");
  }
  std::int64_t Exists(const std::string& name) {
    return db_->Count("SELECT count(*) FROM pg_class WHERE relname = '" + name +
                      "' AND relnamespace = 'chopar'::regnamespace");
  }

  // Every partition the test removed is back, the weeks have no gaps, and
  // the history written before is whole.
  void ExpectMaintained() {
    for (const std::string& name : removed_) {
      EXPECT_EQ(db_->Count("SELECT count(*) FROM pg_class WHERE relname = '" + name +
                           "' AND relispartition"),
                1)
          << name;
    }
    EXPECT_EQ(DetachedPartitionTables(), 0);
    for (const char* table : {"chopar.deliveries", "chopar.sink_messages"}) {
      EXPECT_EQ(db_->Count(std::string("SELECT count(*) FROM (SELECT lower_bound, "
                                       "lag(upper_bound) OVER (ORDER BY upper_bound) AS previous "
                                       "FROM chopar.history_partitions('") +
                           table + "')) p WHERE previous IS NOT NULL AND previous <> lower_bound"),
                0)
          << table;
      EXPECT_EQ(db_->Count(std::string("SELECT count(*) FROM ") + table), 1) << table;
    }
    EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 1);
    // A delivery can be written in the newest week again.
    db_->Scalar(
        "INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
        "SELECT id, 1, 'push', now() + interval '4 weeks' FROM chopar.notifications");
  }

  bool AllPartitionsBack() {
    for (const std::string& name : removed_) {
      if (db_->Count("SELECT count(*) FROM pg_class WHERE relname = '" + name +
                     "' AND relispartition") != 1) {
        return false;
      }
    }
    return true;
  }

  // The partitions dropped in SetUp: deliveries' newest and the one before
  // it (which the pass creates first), then sink_messages' two.
  std::vector<std::string> removed_;
};

TEST_F(HistoryFaults, WorkerKilledMidDdlLeavesNoHalfMadePartitionAndTheNextOneCompletes) {
  db::Connection blocker = db_->Connect();
  BlockTheSecondPartition(blocker);
  auto worker = StartWorker("worker-1.log");
  std::optional<std::int64_t> backend;
  ASSERT_TRUE(WaitUntil([&] { return (backend = PassWaitingMidDdl()).has_value(); }, 60s))
      << worker->Output();
  worker->Signal(SIGKILL);
  EXPECT_EQ(worker->Wait(10s), 128 + SIGKILL);
  // The killed process's session ends (its statement gives up at the pass's
  // lock timeout); only then is the blocking transaction let go, so nothing
  // the dead pass began can be committed.
  ASSERT_TRUE(WaitUntil([&] { return BackendGone(*backend); }, 30s));
  blocker.ExecText("ROLLBACK", {});

  // Nothing of the interrupted pass remains: the partition it had created
  // went with its transaction.
  EXPECT_EQ(Exists(removed_[1]), 0) << "the partition the killed pass created survived it";
  EXPECT_EQ(DetachedPartitionTables(), 0);

  worker = StartWorker("worker-2.log");
  ASSERT_TRUE(WaitUntil([&] { return AllPartitionsBack(); }, 60s)) << worker->Output();
  ExpectMaintained();
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

TEST_F(HistoryFaults, DatabaseCrashMidDdlIsRecoveredByTheRunningLoop) {
  auto blocker = std::make_unique<db::Connection>(db_->Connect());
  BlockTheSecondPartition(*blocker);
  auto worker = StartWorker("worker.log");
  ASSERT_TRUE(WaitUntil([&] { return PassWaitingMidDdl().has_value(); }, 60s)) << worker->Output();
  // Every session goes with the crash, the blocking one too.
  TestServer::CrashAndRestart();
  blocker.reset();
  EXPECT_EQ(DetachedPartitionTables(), 0);

  // The same process, without a restart, tries again after its backoff.
  ASSERT_TRUE(WaitUntil([&] { return AllPartitionsBack(); }, 90s)) << worker->Output();
  EXPECT_TRUE(worker->Running()) << worker->Output();
  ExpectMaintained();
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

}  // namespace
}  // namespace chopar
