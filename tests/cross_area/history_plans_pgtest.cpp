// The hot statements keep their index conditions on the partitioned history
// (migrations 0017, 0020): on a database with a month of weekly partitions
// full of notifications, deliveries and sink messages, each statement is planned as chopar runs it
// (PREPARE with its parameters) and its plan must not read a big partition
// or table sequentially; a statement bounded by created_at reads only the
// partitions its bound allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "console/queries.hpp"
#include "delivery/queries.hpp"
#include "hub/queries.hpp"
#include "testing/query_plans.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

// Rows in each of the four past weekly partitions and in the current one.
constexpr int kRowsPerWeek = 5000;

class HistoryPlansTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (!db_) return;
    // A database partitioned for a month already: the (empty) first
    // partition of the conversion gives way to weekly partitions for the
    // seven weeks before the first weekly one.
    db_->Connect().ExecScript(R"(
      ALTER TABLE chopar.deliveries DETACH PARTITION chopar.deliveries_legacy;
      DROP TABLE chopar.deliveries_legacy;
      ALTER TABLE chopar.sink_messages DETACH PARTITION chopar.sink_messages_legacy;
      DROP TABLE chopar.sink_messages_legacy;
      ALTER TABLE chopar.notifications DETACH PARTITION chopar.notifications_legacy;
      DROP TABLE chopar.notifications_legacy;
      DO $$
      DECLARE
        table_name text;
        first timestamptz := (SELECT min(lower_bound) FROM chopar.history_partitions('chopar.deliveries'));
        week integer;
      BEGIN
        FOREACH table_name IN ARRAY ARRAY['deliveries', 'sink_messages', 'notifications'] LOOP
          FOR week IN 1..7 LOOP
            EXECUTE format('CREATE TABLE chopar.%I PARTITION OF chopar.%I FOR VALUES FROM (%L) TO (%L)',
                           table_name || '_past' || week, table_name,
                           first - make_interval(weeks => week), first - make_interval(weeks => week - 1));
          END LOOP;
        END LOOP;
      END
      $$;
      INSERT INTO chopar.users (id, email) SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 500) g;)");
    // Each week's notifications with one delivery and one sink message each,
    // mostly sent, some queued, failed or being sent, spread over the week
    // before now and the four weeks before that.
    for (int week = 4; week >= 0; --week) {
      const std::string at = "now() - make_interval(weeks => " + std::to_string(week) +
                             ") - make_interval(secs => g * 100)";
      db_->Scalar(
          "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, dedup_key, "
          "created_at) SELECT 1 + g % 500, 'plan.test', 'n' || g, 'k' || " +
          std::to_string(week) + " || '-' || g, " + at + " FROM generate_series(1, " +
          std::to_string(kRowsPerWeek) +
          ") g RETURNING id, user_id, dedup_key, created_at), "
          "k AS (INSERT INTO chopar.notification_dedup (user_id, dedup_key, notification_id, "
          "created_at) SELECT user_id, dedup_key, id, created_at FROM n), "
          "d AS (INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, "
          "attempts, claimed_at, sent_at, lease_until, claim_token, created_at, updated_at) "
          "SELECT id, user_id, 'email', s.status, 1, created_at, "
          "CASE WHEN s.status = 'sent' THEN created_at END, "
          "CASE WHEN s.status = 'sending' THEN now() + interval '1 minute' END, "
          "CASE WHEN s.status = 'sending' THEN gen_random_uuid() END, created_at, created_at "
          "FROM n CROSS JOIN LATERAL (SELECT CASE WHEN n.id % 50 = 0 THEN 'queued' "
          "WHEN n.id % 50 = 1 THEN 'failed' WHEN n.id % 50 = 2 AND " +
          std::to_string(week) +
          " = 0 THEN 'sending' ELSE 'sent' END AS status) s RETURNING id, user_id, created_at) "
          "INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, address, created_at) "
          "SELECT id, 'email', user_id, 'u@example.com', created_at FROM d");
    }
    db_->Scalar("ANALYZE");
  }

  // The plan of `query` run with `arguments` (SQL literals), as a
  // PREPARE'd statement runs under the query's db::Plan (its first
  // execution): EXPLAIN (FORMAT JSON) text.
  std::string Plan(const db::Query& query, const std::string& arguments) {
    db::Connection conn = db_->Connect();
    conn.ExecText(std::string("PREPARE planned AS ") + query.sql, {});
    const std::string explain =
        "EXPLAIN (FORMAT JSON) EXECUTE planned" + (arguments.empty() ? "" : "(" + arguments + ")");
    return conn.Exec(db::Query{"explain_planned", explain.c_str(), query.plan}, db::Params())
        .String(0, 0);
  }

  // The relations a plan reads.
  static std::set<std::string> RelationsRead(const std::string& plan) {
    std::set<std::string> relations;
    const auto walk = [&](const auto& self, const nlohmann::json& node) -> void {
      if (node.contains("Relation Name"))
        relations.insert(node["Relation Name"].get<std::string>());
      if (node.contains("Plans"))
        for (const auto& child : node["Plans"]) self(self, child);
    };
    walk(walk, nlohmann::json::parse(plan)[0]["Plan"]);
    return relations;
  }

  // Fails the test when the plan of `query` reads a big relation
  // sequentially.
  void ExpectIndexDriven(const db::Query& query, const std::string& arguments) {
    const std::string plan = Plan(query, arguments);
    db::Connection conn = db_->Connect();
    EXPECT_EQ(chopar::testing::BigRelationsScannedSequentially(conn, plan), std::set<std::string>{})
        << query.name << ":\n"
        << plan;
  }

  std::string Scalar(const std::string& sql) { return db_->Scalar(sql); }
};

TEST_F(HistoryPlansTest, TheDataSpreadsOverSeveralBigPartitions) {
  EXPECT_GE(db_->Count("SELECT count(*) FROM pg_class WHERE relname LIKE 'deliveries_%' "
                       "AND relkind = 'r' AND reltuples >= 1000"),
            4);
}

TEST_F(HistoryPlansTest, DeliveryWorkerStatementsUseIndexes) {
  const std::string id = Scalar("SELECT max(id) FROM chopar.deliveries WHERE status = 'sending'");
  const std::string token = Scalar("SELECT claim_token FROM chopar.deliveries WHERE id = " + id);
  const std::string ids = "'{" + id + "}'";
  const std::string tokens = "'{" + token + "}'";
  ExpectIndexDriven(delivery::queries::kClaimCandidates,
                    "NULL, 100, 60000, '{telegram}', '{push}', '{}', '{mobile}', '-infinity'");
  ExpectIndexDriven(delivery::queries::kNextWakeup, "NULL, '-infinity'");
  const std::string created_at =
      "'" + Scalar("SELECT created_at FROM chopar.deliveries WHERE id = " + id) + "'";
  ExpectIndexDriven(delivery::queries::kApplyClaim,
                    ids + ", '{send}', '{NULL}', '{NULL}', now(), now() + interval '1 minute', " +
                        created_at + ", " + created_at);
  ExpectIndexDriven(delivery::queries::kBeginSends, ids + ", " + tokens + ", NULL, 30000");
  ExpectIndexDriven(delivery::queries::kRenewLeases, ids + ", " + tokens + ", NULL, 30000");
  ExpectIndexDriven(
      delivery::queries::kRecordOutcomes,
      "'[{\"id\": " + id + ", \"token\": \"" + token + "\", \"status\": \"sent\"}]', NULL");
  ExpectIndexDriven(delivery::queries::kReleaseClaims, ids + ", " + tokens + ", NULL, 'drain'");
  ExpectIndexDriven(delivery::queries::kCountRateWindow,
                    "'{1,2}', '{email,email}', now() - interval '1 hour', '{}'");
}

TEST_F(HistoryPlansTest, NotifyInboxAndDedupStatementsUseIndexes) {
  const std::string id = Scalar("SELECT max(id) FROM chopar.notifications WHERE user_id = 7");
  ExpectIndexDriven(
      hub::queries::kInsertNotifications,
      "'{0}', '{7}', '{plan.test}', '{t}', '{\"\"}', '{NULL}', '{\"{}\"}', "
      "'{k0-7}', '{f}', '{email}', now(), '{}', '{NULL}', '{NULL}', '{NULL}', '{NULL}', "
      "'{NULL}', NULL, NULL, NULL, NULL, NULL");
  ExpectIndexDriven(hub::queries::kFindByDedupKey, "7, 'k0-7'");
  ExpectIndexDriven(hub::queries::kListNotifications,
                    "7, (extract(epoch FROM now()) * 1000000)::bigint, 9223372036854775807, 20, "
                    "NULL, false, false, NULL, NULL, NULL");
  ExpectIndexDriven(hub::queries::kListUnreadNotifications,
                    "7, (extract(epoch FROM now()) * 1000000)::bigint, 9223372036854775807, 20, "
                    "NULL, false, false, '{tasks}', 'billing', false");
  ExpectIndexDriven(hub::queries::kInboxCounts, "7, NULL, NULL, NULL");
  ExpectIndexDriven(hub::queries::kListNotificationsUnsent,
                    "7, " + id + " - 1000, 100, NULL, '{}'");
  ExpectIndexDriven(hub::queries::kListNotificationsUnsent,
                    "7, " + id + ", 100, now() - interval '90 seconds', '{" + id + "}'");
  ExpectIndexDriven(hub::queries::kLatestNotificationId, "7");
  ExpectIndexDriven(hub::queries::kChangeState,
                    "7, 'read', '{" + id + "}', NULL, NULL, NULL, NULL, 1000");
  ExpectIndexDriven(hub::queries::kChangeState,
                    "7, 'archived', NULL, '{tasks}', 'billing', NULL, NULL, 1000");
  ExpectIndexDriven(hub::queries::kNotificationsByIds, "7, '{" + id + "}'");
  ExpectIndexDriven(hub::queries::kInsertDelayed,
                    "'{0}', '{" + id +
                        "}', '{7}', '{2030-01-01T00:00:00Z}', '{\"{}\"}', "
                        "'{k0-7}', '{NULL}', now(), 1");
  // A notification with its deliveries, found by notification_id.
  ExpectIndexDriven(hub::queries::kGetNotification, id);
}

TEST_F(HistoryPlansTest, LookupsByIdUseEachPartitionsIndex) {
  const std::string id = Scalar("SELECT min(id) FROM chopar.deliveries");
  ExpectIndexDriven(console::queries::kGetDelivery, id);
  ExpectIndexDriven(console::queries::kLockDelivery, id);
  ExpectIndexDriven(console::queries::kRequeueDelivery, id);
  ExpectIndexDriven(hub::queries::kListDeliveries, "NULL, NULL, 7, 20, 9223372036854775807");
  ExpectIndexDriven(hub::queries::kListDeliveries, "'failed', NULL, NULL, 20, 9223372036854775807");
  ExpectIndexDriven(console::queries::kListSinkMessages, "NULL, NULL, 50, 9223372036854775807");
}

// The inbox's next page reads only the partitions at or before its cursor:
// the statement bounds created_at, which the keyset row comparison alone
// does not let the planner prune by.
TEST_F(HistoryPlansTest, AnInboxPageReadsOnlyPartitionsUpToItsCursor) {
  const std::string newer_partitions = Scalar(
      "SELECT string_agg(c.relname, ',') FROM chopar.history_partitions('chopar.notifications') p "
      "JOIN pg_class c ON c.oid = p.partition "
      "WHERE p.lower_bound > now() - interval '2 weeks'");
  ASSERT_GE(std::count(newer_partitions.begin(), newer_partitions.end(), ','), 1)
      << newer_partitions;
  const std::string cursor = "(extract(epoch FROM now() - interval '2 weeks') * 1000000)::bigint";
  for (const db::Query* query :
       {&hub::queries::kListNotifications, &hub::queries::kListUnreadNotifications}) {
    const std::set<std::string> relations =
        RelationsRead(Plan(*query, "7, " + cursor +
                                       ", 9223372036854775807, 20, NULL, false, false, NULL, "
                                       "NULL, NULL"));
    EXPECT_NE(relations.size(), 0u);
    for (const std::string& relation : relations) {
      EXPECT_EQ(("," + newer_partitions + ",").find("," + relation + ","), std::string::npos)
          << query->name << ": " << relation << " is read";
    }
  }
}

// GET /v1/stats/deliveries reads the last hour: the partitions that end
// before it are pruned from its plan. (The
// recent partition itself is read through its BRIN index or sequentially,
// whichever is cheaper for its size; a test-sized week is one block range.)
TEST_F(HistoryPlansTest, ARecentWindowReadsOnlyRecentPartitions) {
  const std::string old_partitions = Scalar(
      "SELECT string_agg(c.relname, ',') FROM chopar.history_partitions('chopar.deliveries') p "
      "JOIN pg_class c ON c.oid = p.partition "
      "WHERE p.upper_bound < now() - interval '61 minutes' AND c.reltuples >= 1000");
  ASSERT_GE(std::count(old_partitions.begin(), old_partitions.end(), ','), 2) << old_partitions;
  const std::set<std::string> relations =
      RelationsRead(Plan(console::queries::kDeliveriesPerMinute, "60"));
  EXPECT_NE(relations.size(), 0u);
  for (const std::string& relation : relations) {
    EXPECT_EQ(("," + old_partitions + ",").find("," + relation + ","), std::string::npos)
        << relation << " is read";
  }
}

// The claim and the throttle find a delivery's notification by its key,
// (id, created_at), in its own week. Where the statistics say created_at is
// nearly unique, a B-tree on created_at alone (notifications_created before
// 0038) was costed as the key was, and won the tie where the key's index is
// the bigger one: after a burst of batched notifications written and
// deleted, and in this fixture in a week nothing was written to. Each lookup
// then read its row's whole batch, which shares one created_at.
// notifications_created is BRIN since, so the key is the only index path.
TEST_F(HistoryPlansTest, LookupsOfNotificationsByKeyUseTheKeyAfterABurstOfDeletes) {
  const std::string before = Scalar("SELECT max(id) FROM chopar.notifications");
  Scalar(
      "INSERT INTO chopar.notifications (user_id, type, title, created_at) "
      "SELECT 1 + g % 500, 'plan.test', 'burst', now() - (g / 1000) * interval '1 second' "
      "FROM generate_series(1, 200000) g");
  Scalar("DELETE FROM chopar.notifications WHERE id > " + before);
  Scalar("VACUUM ANALYZE chopar.notifications");
  // The indexes each plan reads notifications through.
  const auto notification_indexes = [](const std::string& plan) {
    std::set<std::string> indexes;
    const auto walk = [&](const auto& self, const nlohmann::json& node) -> void {
      if (node.value("Relation Name", "").rfind("notifications", 0) == 0)
        indexes.insert(node.value("Index Name", node.value("Node Type", "")));
      if (node.contains("Plans"))
        for (const auto& child : node["Plans"]) self(self, child);
    };
    walk(walk, nlohmann::json::parse(plan)[0]["Plan"]);
    return indexes;
  };
  for (const std::string& plan :
       {Plan(delivery::queries::kClaimCandidates,
             "NULL, 500, 0, '{telegram}', '{push}', '{}', '{mobile}', '-infinity'"),
        Plan(delivery::queries::kCountThrottleWindow,
             "'{1}', '{plan.test}', ARRAY[now() - interval '1 hour'], '{}'")}) {
    const std::set<std::string> indexes = notification_indexes(plan);
    EXPECT_FALSE(indexes.empty()) << plan;
    for (const std::string& index : indexes)
      EXPECT_TRUE(index.size() > 5 && index.compare(index.size() - 5, 5, "_pkey") == 0)
          << index << " in\n"
          << plan;
  }
}

}  // namespace
}  // namespace chopar
