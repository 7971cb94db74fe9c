// The delivery queue's read-only statements (queries/next_wakeup.sql,
// queue_depth.sql, the hourly-limit count) as db::Plan::kGeneric runs them,
// and the claim as it runs, on real PostgreSQL: their generic plan, made on
// statistics taken while no row was queued (the history all sent), reads
// the partial indexes of queued and leased rows after a broadcast queued
// thousands — never a partition whole, never every queued row for the next
// due time — and the count probes the per-user index alone.

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "delivery/queries.hpp"
#include "delivery/test_fixture.hpp"
#include "testing/query_plans.hpp"

namespace chopar::delivery {
namespace {

class QueuePlanTest : public testing::DeliveryPgTest {
 protected:
  void SetUp() override {
    DeliveryPgTest::SetUp();
    if (IsSkipped()) return;
    // No autovacuum: an ANALYZE would make the plans follow the rows.
    const auto partitions =
        Sql("SELECT relid::text FROM pg_partition_tree('chopar.deliveries') WHERE isleaf");
    for (int i = 0; i < partitions.Rows(); ++i)
      Sql("ALTER TABLE " + partitions.String(i, 0) + " SET (autovacuum_enabled = off)");
    Sql("INSERT INTO users (id, email) SELECT g, 'u' || g || '@example.uz' "
        "FROM generate_series(1, 2000) g");
    Sql("INSERT INTO notifications (user_id, type, title, created_at) "
        "SELECT 1 + g % 2000, 'news', 'News', now() FROM generate_series(1, 20000) g");
    Sql("INSERT INTO deliveries (notification_id, user_id, channel, status, claimed_at, sent_at, "
        "created_at) SELECT id, user_id, 'email', 'sent', now(), now(), now() FROM notifications");
    Sql("ANALYZE deliveries");
  }

  // A broadcast's queue, not analyzed: 20,000 queued deliveries due over the
  // next 1,000 s, the first at `first_due`, and one being sent.
  void QueueABroadcast(const std::string& first_due) {
    Sql("INSERT INTO deliveries (notification_id, user_id, channel, status, next_attempt_at, "
        "created_at, bulk) SELECT id, user_id, 'sms', 'queued', " +
        first_due + " + (id % 1000) * interval '1 second', now(), true FROM notifications");
    Sql("UPDATE deliveries SET status = 'sending', lease_until = " + first_due +
        " + interval '1 hour', claim_token = gen_random_uuid(), claimed_at = now() WHERE id = "
        "(SELECT min(id) FROM deliveries WHERE channel = 'sms')");
  }

  // The plan that `sql` runs with under `plan` (db/query.hpp), on the one
  // connection of `pool`; `arguments` as in EXECUTE (empty: none), and
  // `explain` the EXPLAIN's options. The statement is planned when EXPLAIN
  // first executes it, as the query's first execution would plan it.
  static std::string PlanUnder(db::Pool& pool, db::Plan plan, const char* sql,
                               const std::string& arguments,
                               const std::string& explain = "EXPLAIN") {
    pool.Acquire()->ExecText(std::string("PREPARE planned AS ") + sql, {});
    const std::string statement = explain + " EXECUTE planned" + arguments;
    const auto rows =
        pool.Acquire()->Exec(db::Query{"explain_planned", statement.c_str(), plan}, db::Params());
    const std::string text = chopar::testing::PlanText(rows);
    {
      auto conn = pool.Acquire();
      conn->ExecText("DEALLOCATE planned", {});
    }
    return text;
  }

  // The plan that `query` (a db::Plan::kGeneric one) runs with.
  static std::string GenericPlan(db::Pool& pool, const db::Query& query,
                                 const std::string& arguments) {
    EXPECT_EQ(query.plan, db::Plan::kGeneric) << query.name;
    return PlanUnder(pool, db::Plan::kGeneric, query.sql, arguments);
  }

  db::Pool OneConnection() { return db::Pool(db_->url(), 1); }
};

TEST_F(QueuePlanTest, WakeUpPlannedBeforeABroadcastReadsTheFirstIndexEntries) {
  const auto queued_from = std::chrono::steady_clock::now();
  QueueABroadcast("now() + interval '10 seconds'");
  db::Pool pool = OneConnection();

  const std::string plan = GenericPlan(pool, queries::kNextWakeup, "(NULL, '-infinity')");
  // (The one row of the horizon is read whole.)
  EXPECT_EQ(plan.find("Seq Scan on deliveries"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Aggregate"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Index Scan using deliveries_"), std::string::npos) << plan;

  // And what it answers: the first queued row, due 10 s after the now() of
  // the transaction that queued it, less the time that has passed since
  // (however long a loaded machine took to plan).
  const auto wait = pool.Acquire()->Exec(queries::kNextWakeup,
                                         db::Params(std::optional<std::string>(), "-infinity"));
  const double passed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - queued_from)
          .count();
  const double wait_ms = std::stod(wait.String(0, "wait_ms"));
  EXPECT_LE(wait_ms, 10'000 + 50);
  EXPECT_GE(wait_ms, 10'000 - passed_ms - 50);
}

TEST_F(QueuePlanTest, DepthPlannedBeforeABroadcastCountsFromThePartialIndexes) {
  QueueABroadcast("now()");
  db::Pool pool = OneConnection();

  const std::string plan = GenericPlan(pool, queries::kQueueDepth, "");
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Index Only Scan using deliveries_"), std::string::npos) << plan;

  EXPECT_EQ(pool.Acquire()->Exec(queries::kQueueDepth, db::Params()).Int(0, "depth"), 20'000);
}

// The hourly-limit count's generic plan, on the partition of this week's
// sent rows (analyzed): each (user, channel) is one probe of the per-user index,
// never intersected with a bitmap of the week's created_at index (the
// count's bound on the partition key holds for the whole partition, which a
// generic plan cannot tell). On 20 million rows of history that bitmap made
// a count 17 ms instead of 1.9.
TEST_F(QueuePlanTest, HourlyLimitCountProbesThePerUserIndexOnly) {
  db::Pool pool = OneConnection();
  std::string users = "'{", channels = "'{";
  for (int user = 1; user <= 500; user += 2) {
    users += (user > 1 ? "," : "") + std::to_string(user);
    channels += user > 1 ? ",email" : "email";
  }
  users += "}'";
  channels += "}'";

  const std::string plan =
      GenericPlan(pool, queries::kCountRateWindow,
                  "(" + users + ", " + channels + ", now() - interval '1 hour', '{}')");
  EXPECT_EQ(plan.find("Bitmap"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Index"), std::string::npos) << plan;
}

// The claim, planned by index too: the ordinary rows due come from their
// own small index in the partition the broadcast fills, not from a walk of
// the broadcast's queued rows.
TEST_F(QueuePlanTest, ClaimPlannedBeforeABroadcastFindsOrdinaryRowsInTheirOwnIndex) {
  QueueABroadcast("now() - interval '1 hour'");
  const std::string partition =
      Scalar("SELECT tableoid::regclass::text FROM deliveries WHERE bulk LIMIT 1");
  db::Pool pool = OneConnection();

  const std::string plan =
      GenericPlan(pool, queries::kClaimCandidates,
                  "(NULL, 500, 0, '{telegram}', '{push}', '{}', '{mobile}', '-infinity')");
  const auto due = plan.find("CTE due\n");
  const auto due_bulk = plan.find("CTE due_bulk");
  ASSERT_NE(due, std::string::npos) << plan;
  ASSERT_NE(due_bulk, std::string::npos) << plan;
  const std::string ordinary = plan.substr(due, due_bulk - due);
  EXPECT_NE(ordinary.find("using " + partition + "_due_ordinary on " + partition),
            std::string::npos)
      << partition << "\n"
      << ordinary;
}

// The horizon of active deliveries (migration 0037) is a parameter of the
// claim's lanes and of the wake-up question, so their generic plans leave
// the weeks before it out when the executor starts, before any of their
// indexes is opened: bound by the first partition's upper bound, that
// partition is removed from each lane.
TEST_F(QueuePlanTest, TheHorizonLeavesOlderWeeksOutOfTheClaimAtStartUp) {
  const std::string first_week_end = Scalar(
      "SELECT upper_bound FROM chopar.history_partitions('chopar.deliveries') "
      "WHERE lower_bound = '-infinity'");
  const std::string bound = "'" + first_week_end + "'";
  // A pool each: a connection keeps the EXPLAIN statement it prepared.
  db::Pool for_claim = OneConnection(), for_wakeup = OneConnection(),
           unbound_pool = OneConnection();

  const std::string claim =
      GenericPlan(for_claim, queries::kClaimCandidates,
                  "(NULL, 500, 0, '{telegram}', '{push}', '{}', '{mobile}', " + bound + ")");
  const std::string wakeup = GenericPlan(for_wakeup, queries::kNextWakeup, "(NULL, " + bound + ")");
  const std::string unbound =
      GenericPlan(unbound_pool, queries::kNextWakeup, "(NULL, '-infinity')");

  const auto removed = [](const std::string& plan) {
    int n = 0;
    for (auto at = plan.find("Subplans Removed: 1"); at != std::string::npos;
         at = plan.find("Subplans Removed: 1", at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(removed(claim), 3) << "each of the three lanes\n" << claim;
  EXPECT_EQ(removed(wakeup), 2) << wakeup;
  EXPECT_EQ(unbound.find("Subplans Removed"), std::string::npos) << unbound;
}

// The claim's update of a large batch, planned for its arrays (db::Plan::
// kCustom) on statistics that do not know the newest rows yet (a busy
// week's partition analyzed a while ago): they estimated one row for the
// ids' index scan, and a nested loop rescanned the 500-element arrays for
// each row found — 250,000 comparisons, 50–70 ms instead of ~13 ms on 20
// million rows of history. The rows and the arrays are joined by hash.
TEST_F(QueuePlanTest, ClaimUpdateOfALargeBatchJoinsItsArraysByHashWhateverTheStatistics) {
  Sql("INSERT INTO notifications (user_id, type, title, created_at) "
      "SELECT 1 + g % 2000, 'news', 'News', now() + interval '1 second' "
      "FROM generate_series(1, 500) g");
  Sql("INSERT INTO deliveries (notification_id, user_id, channel, status, created_at) "
      "SELECT id, user_id, 'email', 'queued', created_at FROM notifications "
      "WHERE created_at > now()");
  const auto batch =
      Sql("SELECT array_agg(id)::text, array_agg('sent'::text)::text, "
          "array_agg(NULL::timestamptz)::text, array_agg(NULL::text)::text, "
          "min(created_at)::text, max(created_at)::text FROM deliveries WHERE status = 'queued'");
  db::Pool pool = OneConnection();
  const auto literal = [&](int column) { return "'" + batch.String(0, column) + "'"; };
  const std::string plan =
      PlanUnder(pool, db::Plan::kCustom, queries::kApplyClaim.sql,
                "(" + literal(0) + ", " + literal(1) + ", " + literal(2) + ", " + literal(3) +
                    ", now(), now() + interval '1 minute', " + literal(4) + ", " + literal(5) + ")",
                "EXPLAIN (ANALYZE, COSTS OFF)");
  EXPECT_EQ(plan.find("Join Filter"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Hash Join"), std::string::npos) << plan;
}

}  // namespace
}  // namespace chopar::delivery
