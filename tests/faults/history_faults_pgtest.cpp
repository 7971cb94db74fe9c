// The history maintenance of a `chopar worker` interrupted in the middle of
// its DDL (docs/operations.md, "Partitioned history"): the worker is killed
// with SIGKILL, or PostgreSQL crashes (`pg_ctl restart -m immediate`), while
// a pass creates or drops partitions in its open transaction. Afterwards the
// loop completes: every missing week has its partition, every week past the
// retention is gone, no table is left half-made (created but not attached),
// and the rows within the retention are all there.
//
// The window is made wide deterministically: the test holds, in a
// transaction it keeps open, what the pass's next DDL statement needs (a
// table with the name of the partition it creates next; a sequence owned by
// the partition it drops next), so the statement waits for that
// transaction (up to the pass's 2 s lock_timeout, then again after its
// backoff); the fault strikes once the test sees the pass waiting there.

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../blackbox_support.hpp"
#include "db/connection.hpp"
#include "fault_support.hpp"
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
    db_->Scalar("INSERT INTO chopar.users (id) VALUES (1)");
  }

  // A notification created at `at` (SQL) with a delivery and its sink
  // message, all three stamped `at`.
  void WriteHistory(const std::string& at) {
    db_->Scalar(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, created_at) "
        "VALUES (1, 'history.kept', 'before the fault', " +
        at +
        ") RETURNING id, created_at), "
        "d AS (INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
        "SELECT id, 1, 'email', created_at FROM n RETURNING id, created_at) "
        "INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, created_at) "
        "SELECT id, 'email', 1, created_at FROM d");
  }

  // The two newest weeks of each history table go (they are empty), so the
  // next pass has partitions to create.
  void RemoveNewestWeeks() {
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

  // Lays the (still empty) tables out as if partitioned five weeks before
  // the migration's cutover: <table>_legacy holds what is older, then a
  // partition per week, so retention has weeks to drop. The oldest week of
  // deliveries owns a sequence, as a converted table's legacy partition owns
  // its old identity sequence: dropping the partition locks it, and the test
  // can hold it (BlockTheSecondDrop).
  void PartitionFiveWeeksBack() {
    for (const char* table : {"deliveries", "sink_messages"}) {
      db_->Scalar(std::string("DO $$ DECLARE cutover timestamptz := (SELECT upper_bound FROM "
                              "chopar.history_partitions('chopar.") +
                  table +
                  "') WHERE lower_bound = '-infinity'); week timestamptz; BEGIN "
                  "DROP TABLE chopar." +
                  table + "_legacy; EXECUTE format('CREATE TABLE chopar." + table +
                  "_legacy PARTITION OF chopar." + table +
                  " FOR VALUES FROM (MINVALUE) TO (%L)', cutover - interval '840 hours'); "
                  "FOR week IN SELECT cutover - interval '168 hours' * g FROM "
                  "generate_series(1, 5) g LOOP EXECUTE format('CREATE TABLE chopar.%I "
                  "PARTITION OF chopar." +
                  table + " FOR VALUES FROM (%L) TO (%L)', '" + table +
                  "_p' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD'), week, "
                  "week + interval '168 hours'); END LOOP; END $$");
    }
    oldest_week_ = db_->Scalar(
        "SELECT c.relname FROM chopar.history_partitions('chopar.deliveries') p "
        "JOIN pg_class c ON c.oid = p.partition ORDER BY p.upper_bound OFFSET 1 LIMIT 1");
    db_->Scalar("CREATE SEQUENCE chopar.deliveries_old_week_seq OWNED BY chopar." + oldest_week_ +
                ".id");
  }

  std::unique_ptr<testing::ChildProcess> StartWorker(const std::string& log,
                                                     std::map<std::string, std::string> env = {}) {
    return Start("worker", testing::FreeLoopbackPort(), DatabaseEnv(kApiKey, std::move(env)), log);
  }

  // Opens a transaction on `conn` that creates (and keeps uncommitted) a
  // table named like the newest partition of deliveries the pass will make.
  void BlockTheSecondPartition(db::Connection& conn) {
    conn.ExecText("BEGIN", {});
    conn.ExecText("CREATE TABLE chopar." + removed_.front() + " (blocking integer)", {});
  }
  // Opens a transaction on `conn` that holds a lock on the sequence the
  // oldest week of deliveries owns: the pass drops deliveries_legacy, then
  // waits to drop that week.
  static void BlockTheSecondDrop(db::Connection& conn) {
    conn.ExecText("BEGIN", {});
    conn.ExecText("SELECT nextval('chopar.deliveries_old_week_seq')", {});
  }

  // The backend of the pass once its statement calling `function` waits
  // (pg_locks `w`, not granted) where `where` (SQL on `a` and `w`) says;
  // nullopt until then.
  std::optional<std::int64_t> PassWaitingIn(const std::string& function, const std::string& where) {
    return testing::BackendWaitingIn(*db_, function, where);
  }
  // Creating: it holds, uncommitted, a partition it created (an ACCESS
  // EXCLUSIVE lock on a relation this session cannot see yet).
  std::optional<std::int64_t> PassWaitingMidCreate() {
    return PassWaitingIn("create_history_partitions",
                         "EXISTS (SELECT FROM pg_locks l WHERE l.pid = a.pid AND l.granted "
                         "AND l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock' "
                         "AND NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = l.relation))");
  }
  // Dropping: it waits for the sequence of the oldest week, so it is in DROP
  // TABLE of that week, deliveries_legacy (older) already dropped in its
  // transaction.
  std::optional<std::int64_t> PassWaitingMidDrop() {
    return PassWaitingIn("drop_history_partitions",
                         "w.relation = 'chopar.deliveries_old_week_seq'::regclass");
  }

  // SIGKILL for `worker` once `backend`, its pass's session, waits mid-DDL.
  // The session ends when its statement gives up (the pass's lock
  // timeout); only then is `blocker`'s transaction let go, so nothing the
  // dead pass began could be committed.
  void KillMidDdl(testing::ChildProcess& worker, std::int64_t backend, db::Connection& blocker) {
    worker.Signal(SIGKILL);
    EXPECT_EQ(worker.Wait(10s), 128 + SIGKILL);
    ASSERT_TRUE(WaitUntil([&] { return testing::BackendGone(*db_, backend); }, 30s));
    blocker.ExecText("ROLLBACK", {});
  }

  // Tables of chopar named like a history partition that are not attached
  // to their table: a half-made partition.
  std::int64_t DetachedPartitionTables() {
    return db_->Count(
        "SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'chopar'::regnamespace "
        "AND c.relkind IN ('r', 'p') "
        "AND c.relname ~ '^(deliveries|sink_messages)_(p[0-9]{8}|legacy)$' "
        "AND NOT c.relispartition");
  }
  std::int64_t Partition(const std::string& name) {
    return db_->Count("SELECT count(*) FROM pg_class WHERE relname = '" + name +
                      "' AND relnamespace = 'chopar'::regnamespace AND relispartition");
  }
  // Rows of chopar.`table` created before now() − `days` days.
  std::int64_t RowsOlderThan(const std::string& table, int days) {
    return db_->Count("SELECT count(*) FROM chopar." + table + " WHERE created_at < now() - " +
                      std::to_string(days) + " * interval '1 day'");
  }
  // Partitions of chopar.`table` whose every row would be older than
  // now() − `days` days: what retention drops.
  std::int64_t PartitionsOlderThan(const std::string& table, int days) {
    return db_->Count("SELECT count(*) FROM chopar.history_partitions('chopar." + table +
                      "') WHERE upper_bound <= now() - " + std::to_string(days) +
                      " * interval '1 day'");
  }

  // No table is half-made, the weeks of each table have no gaps and reach
  // four weeks ahead (a delivery can be written there), and each table
  // holds `rows` rows.
  void ExpectWholeHistory(std::int64_t rows) {
    EXPECT_EQ(DetachedPartitionTables(), 0);
    for (const char* table : {"deliveries", "sink_messages"}) {
      EXPECT_EQ(db_->Count(std::string("SELECT count(*) FROM (SELECT lower_bound, "
                                       "lag(upper_bound) OVER (ORDER BY upper_bound) AS previous "
                                       "FROM chopar.history_partitions('chopar.") +
                           table + "')) p WHERE previous IS NOT NULL AND previous <> lower_bound"),
                0)
          << table;
      EXPECT_EQ(db_->Count(std::string("SELECT count(*) FROM chopar.") + table), rows) << table;
    }
    db_->Scalar(
        "INSERT INTO chopar.deliveries (notification_id, user_id, channel, created_at) "
        "SELECT max(id), 1, 'push', now() + interval '4 weeks' FROM chopar.notifications");
  }

  bool AllPartitionsBack() {
    for (const std::string& name : removed_) {
      if (Partition(name) != 1) return false;
    }
    return true;
  }

  // The horizon of active deliveries (migration 0037) over the weeks of
  // PartitionFiveWeeksBack(): a delivery queued for tomorrow in the third
  // week (after deliveries_legacy and the oldest week) holds it in, so a
  // pass moves the horizon to that week's start. The test holds the
  // horizon's row, which the pass's advance locks first, so the advance
  // waits in its open transaction (a pass's partition DDL would wait for a
  // lock on a week, so the week itself cannot be held). Returns the start
  // of the third week.
  std::string HoldTheHorizon(db::Connection& blocker) {
    const std::string start = db_->Scalar(
        "SELECT lower_bound FROM chopar.history_partitions('chopar.deliveries') "
        "ORDER BY upper_bound OFFSET 2 LIMIT 1");
    WriteHistory("'" + start + "'::timestamptz + interval '1 hour'");
    db_->Scalar("UPDATE chopar.deliveries SET next_attempt_at = now() + interval '1 day'");
    blocker.ExecText("BEGIN", {});
    blocker.ExecText("SELECT active_from FROM chopar.delivery_horizon FOR UPDATE", {});
    return start;
  }
  // Passes of the horizon's advance waiting for a lock.
  std::int64_t AdvancesWaiting() {
    return db_->Count(
        "SELECT count(*) FROM pg_stat_activity a JOIN pg_locks w ON w.pid = a.pid "
        "AND NOT w.granted WHERE a.datname = current_database() "
        "AND a.query LIKE '%advance_delivery_horizon(%' AND a.pid <> pg_backend_pid()");
  }
  std::string Horizon() { return db_->Scalar("SELECT active_from FROM chopar.delivery_horizon"); }
  // Queued or sending deliveries created before the horizon: none, always.
  std::int64_t ActiveBeforeTheHorizon() {
    return db_->Count(
        "SELECT count(*) FROM chopar.deliveries WHERE status IN ('queued', 'sending') "
        "AND created_at < (SELECT active_from FROM chopar.delivery_horizon)");
  }

  // The partitions RemoveNewestWeeks() dropped: deliveries' newest and the
  // one before it (which the pass creates first), then sink_messages' two.
  std::vector<std::string> removed_;
  // The first week after deliveries_legacy in PartitionFiveWeeksBack().
  std::string oldest_week_;
};

TEST_F(HistoryFaults, WorkerKilledWhileCreatingPartitionsLeavesNoneHalfMade) {
  RemoveNewestWeeks();
  WriteHistory("now()");
  db::Connection blocker = db_->Connect();
  BlockTheSecondPartition(blocker);
  auto worker = StartWorker("worker-1.log");
  std::optional<std::int64_t> backend;
  ASSERT_TRUE(WaitUntil([&] { return (backend = PassWaitingMidCreate()).has_value(); }, 60s))
      << worker->Output();
  KillMidDdl(*worker, *backend, blocker);

  // The partition the killed pass had created went with its transaction.
  EXPECT_EQ(Partition(removed_[1]), 0) << "the partition the killed pass created survived it";
  EXPECT_EQ(DetachedPartitionTables(), 0);

  worker = StartWorker("worker-2.log");
  ASSERT_TRUE(WaitUntil([&] { return AllPartitionsBack(); }, 60s)) << worker->Output();
  ExpectWholeHistory(1);
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

TEST_F(HistoryFaults, WorkerKilledWhileDroppingPartitionsLosesNothingItKeeps) {
  PartitionFiveWeeksBack();
  WriteHistory("now()");
  WriteHistory("now() - interval '30 days'");
  const std::map<std::string, std::string> retention = {{"CHOPAR_RETENTION_DELIVERIES_DAYS", "10"}};
  db::Connection blocker = db_->Connect();
  BlockTheSecondDrop(blocker);
  auto worker = StartWorker("worker-1.log", retention);
  std::optional<std::int64_t> backend;
  ASSERT_TRUE(WaitUntil([&] { return (backend = PassWaitingMidDrop()).has_value(); }, 60s))
      << worker->Output();
  KillMidDdl(*worker, *backend, blocker);

  // The drops went with the killed pass's transaction: the old rows are
  // still there, in their partitions.
  EXPECT_EQ(Partition("deliveries_legacy"), 1);
  EXPECT_EQ(Partition(oldest_week_), 1);
  EXPECT_EQ(RowsOlderThan("deliveries", 10), 1);
  EXPECT_EQ(DetachedPartitionTables(), 0);

  worker = StartWorker("worker-2.log", retention);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return PartitionsOlderThan("deliveries", 10) + PartitionsOlderThan("sink_messages", 10) ==
               0;
      },
      60s))
      << worker->Output();
  EXPECT_EQ(RowsOlderThan("deliveries", 10), 0);
  EXPECT_EQ(RowsOlderThan("sink_messages", 10), 0);
  ExpectWholeHistory(1);  // this week's row
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

TEST_F(HistoryFaults, DatabaseCrashWhileCreatingPartitionsIsRecoveredByTheRunningLoop) {
  RemoveNewestWeeks();
  WriteHistory("now()");
  auto blocker = std::make_unique<db::Connection>(db_->Connect());
  BlockTheSecondPartition(*blocker);
  auto worker = StartWorker("worker.log");
  ASSERT_TRUE(WaitUntil([&] { return PassWaitingMidCreate().has_value(); }, 60s))
      << worker->Output();
  // Every session goes with the crash, the blocking one too.
  TestServer::CrashAndRestart();
  blocker.reset();
  EXPECT_EQ(DetachedPartitionTables(), 0);

  // The same process, without a restart, tries again after its backoff.
  ASSERT_TRUE(WaitUntil([&] { return AllPartitionsBack(); }, 90s)) << worker->Output();
  EXPECT_TRUE(worker->Running()) << worker->Output();
  ExpectWholeHistory(1);
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

// The horizon of active deliveries is moved by the same pass, in one
// transaction of its own: a worker killed while that transaction waits for
// the horizon's row leaves the horizon where it was or, had its statements
// already reached the server, where they put it — never past the queued
// delivery — and the next worker moves it there.
TEST_F(HistoryFaults, WorkerKilledWhileMovingTheHorizonNeverPassesAQueuedDelivery) {
  PartitionFiveWeeksBack();
  db::Connection blocker = db_->Connect();
  const std::string held = HoldTheHorizon(blocker);
  auto worker = StartWorker("worker-1.log");
  ASSERT_TRUE(WaitUntil([&] { return AdvancesWaiting() == 1; }, 60s)) << worker->Output();
  worker->Signal(SIGKILL);
  EXPECT_EQ(worker->Wait(10s), 128 + SIGKILL);
  blocker.ExecText("ROLLBACK", {});
  ASSERT_TRUE(WaitUntil([&] { return AdvancesWaiting() == 0; }, 30s));
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0) << Horizon();

  worker = StartWorker("worker-2.log");
  ASSERT_TRUE(WaitUntil([&] { return Horizon() == held; }, 60s)) << Horizon() << worker->Output();
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0);
  // The killed pass's statements may have moved the horizon already, so the
  // wait above can end before the new worker has even started: a SIGTERM
  // before it blocks the signal would kill it instead of stopping it.
  ASSERT_TRUE(
      WaitUntil([&] { return worker->Output().find(" running ") != std::string::npos; }, 60s))
      << worker->Output();
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

TEST_F(HistoryFaults, DatabaseCrashWhileMovingTheHorizonIsRecoveredByTheRunningLoop) {
  PartitionFiveWeeksBack();
  auto blocker = std::make_unique<db::Connection>(db_->Connect());
  const std::string held = HoldTheHorizon(*blocker);
  auto worker = StartWorker("worker.log");
  ASSERT_TRUE(WaitUntil([&] { return AdvancesWaiting() == 1; }, 60s)) << worker->Output();
  TestServer::CrashAndRestart();
  blocker.reset();
  // Its move went with the crash, or the loop has passed again already.
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0) << Horizon();

  // The same process, without a restart, passes again after its backoff.
  ASSERT_TRUE(WaitUntil([&] { return Horizon() == held; }, 90s)) << Horizon() << worker->Output();
  EXPECT_TRUE(worker->Running()) << worker->Output();
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0);
  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
}

// Two workers pass at once: both advances wait for the horizon's row, then
// take it in turn; the horizon ends at the queued delivery's week.
TEST_F(HistoryFaults, TwoWorkersMovingTheHorizonAtOnceStopAtTheSameWeek) {
  PartitionFiveWeeksBack();
  db::Connection blocker = db_->Connect();
  const std::string held = HoldTheHorizon(blocker);
  auto first = StartWorker("worker-1.log");
  auto second = StartWorker("worker-2.log");
  ASSERT_TRUE(WaitUntil([&] { return AdvancesWaiting() == 2; }, 60s))
      << first->Output() << second->Output();
  blocker.ExecText("ROLLBACK", {});

  ASSERT_TRUE(WaitUntil([&] { return AdvancesWaiting() == 0 && Horizon() == held; }, 60s))
      << Horizon();
  EXPECT_EQ(ActiveBeforeTheHorizon(), 0);
  for (auto* worker : {first.get(), second.get()}) {
    worker->Signal(SIGTERM);
    EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
  }
}

}  // namespace
}  // namespace chopar
