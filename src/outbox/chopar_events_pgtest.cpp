// chopar's own events: the triggers of migration 0010, once enabled, write a
// notification's or a delivery's event in the transaction of the change,
// only for the events the session's setting selects.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "outbox/chopar_events.hpp"
#include "testing/test_database.hpp"

namespace chopar::outbox {
namespace {

using json = nlohmann::json;

class ChoparEventsTest : public chopar::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    auto conn = db_->Connect();
    conn.ExecScript("INSERT INTO chopar.users (id, email) VALUES (7, 'aziz@example.uz')");
    EnableChoparEvents(conn);
  }
  // A session of a chopar process with [events] emit = `patterns`.
  db::Connection Session(const std::vector<std::string>& patterns) const {
    return db::Connection::Open(db_->url(), EventSessionSettings(patterns));
  }
  // Creates a notification with an email delivery; returns the delivery's id.
  static std::int64_t Notify(db::Connection& conn, const std::string& title = "Muddat yaqin") {
    return conn
        .ExecText(
            "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) VALUES (7, "
            "'task.due', $1) "
            "           RETURNING id) "
            "INSERT INTO chopar.deliveries (notification_id, user_id, channel) SELECT id, 7, "
            "'email' FROM n "
            "RETURNING id",
            db::Params(title))
        .Int(0, 0);
  }
  static void SetStatus(db::Connection& conn, std::int64_t delivery, const std::string& status) {
    conn.ExecText(
        "UPDATE chopar.deliveries SET status = $2, claimed_at = now(), "
        "  lease_until = CASE WHEN $2 = 'sending' THEN now() + interval '1 minute' END, "
        "  claim_token = CASE WHEN $2 = 'sending' THEN gen_random_uuid() END, "
        "  sent_at = CASE WHEN $2 = 'sent' THEN now() END, last_error = $3 WHERE id = $1",
        db::Params(delivery, status,
                   status == "sent" ? std::optional<std::string>()
                                    : std::optional<std::string>("because")));
  }
  // The events in the outbox, oldest first: "type user_id".
  std::vector<std::string> Events() const {
    const db::Result rows =
        db_->Connect().ExecText("SELECT type || ' ' || user_id FROM chopar.outbox ORDER BY id", {});
    std::vector<std::string> events;
    for (int i = 0; i < rows.Rows(); ++i) events.push_back(rows.String(i, 0));
    return events;
  }
  json Payload(const std::string& type) const {
    return json::parse(
        db_->Scalar("SELECT payload FROM chopar.outbox WHERE type = '" + type + "'"));
  }
};

TEST(EventSessionSettingsTest, ListsTheSelectedEventsBetweenCommasOrNothing) {
  EXPECT_EQ(EventSessionSettings({}), db::ServerSettings{});
  EXPECT_EQ(
      EventSessionSettings({"delivery.*"}),
      (db::ServerSettings{{"chopar.events",
                           ",delivery.sent,delivery.failed,delivery.skipped,delivery.canceled,"
                           "delivery.delivered,delivery.bounced,delivery.complained,"}}));
  EXPECT_EQ(EventSessionSettings({"notification.read", "delivery.failed"}),
            (db::ServerSettings{{"chopar.events", ",notification.read,delivery.failed,"}}));
}

TEST(ChoparEventsTriggersTest, OnlyADatabaseWhereEventsWereEnabledHasTheTriggers) {
  if (!chopar::testing::TestDatabase::Available()) GTEST_SKIP() << "no test database";
  chopar::testing::TestDatabase db;
  // Besides the trigger that wakes a workflow run when its step's delivery
  // ends (migration 0049): its WHEN clause, false for every other
  // delivery, is all the delivery path runs of it.
  const std::string count =
      "SELECT count(*) FROM pg_trigger WHERE tgrelid IN ('chopar.deliveries'::regclass, "
      "'chopar.notifications'::regclass) AND NOT tgisinternal AND tgname <> "
      "'deliveries_wake_workflow_run'";
  EXPECT_EQ(db.Count(count), 0) << "the delivery path of a database without events is unchanged";
  auto conn = db.Connect();
  EnableChoparEvents(conn);
  EnableChoparEvents(conn);  // idempotent
  EXPECT_EQ(db.Count(count), 3);
}

TEST_F(ChoparEventsTest, WithoutTheSettingNothingIsWritten) {
  auto conn = Session({});
  const std::int64_t delivery = Notify(conn);
  SetStatus(conn, delivery, "sent");
  conn.ExecScript("UPDATE chopar.notifications SET read_at = now()");
  EXPECT_EQ(Events(), std::vector<std::string>{});
}

TEST_F(ChoparEventsTest, EachChangeWritesItsEventInItsTransaction) {
  auto conn = Session({"delivery.*", "notification.*"});
  const std::int64_t sent = Notify(conn, "first");
  SetStatus(conn, sent, "sending");  // not an end: no event
  SetStatus(conn, sent, "sent");
  SetStatus(conn, sent, "sent");  // no change of status: no second event
  SetStatus(conn, Notify(conn, "second"), "failed");
  SetStatus(conn, Notify(conn, "third"), "skipped");
  conn.ExecScript("UPDATE chopar.notifications SET read_at = now() WHERE title = 'first'");
  conn.ExecScript(
      "UPDATE chopar.notifications SET read_at = now() WHERE title = 'first'");  // read already
  conn.ExecScript("BEGIN");
  SetStatus(conn, Notify(conn, "rolled back"), "sent");
  conn.ExecScript("ROLLBACK");

  EXPECT_EQ(Events(), (std::vector<std::string>{"notification.created 7", "delivery.sent 7",
                                                "notification.created 7", "delivery.failed 7",
                                                "notification.created 7", "delivery.skipped 7",
                                                "notification.read 7"}));
  // The payloads are the API's objects.
  const json delivery = Payload("delivery.sent");
  EXPECT_EQ(delivery["id"], sent);
  EXPECT_EQ(delivery["status"], "sent");
  EXPECT_EQ(delivery["channel"], "email");
  EXPECT_TRUE(delivery["sent_at"].is_string());
  EXPECT_EQ(Payload("delivery.failed")["last_error"], "because");
  const json read = Payload("notification.read");
  EXPECT_EQ(read["title"], "first");
  EXPECT_TRUE(read["read_at"].is_string());
}

TEST_F(ChoparEventsTest, WhatTheProviderReportedAfterTheSendIsAnEventOnce) {
  auto conn = Session({"delivery.delivered", "delivery.bounced", "delivery.complained"});
  const std::int64_t delivery = Notify(conn);
  SetStatus(conn, delivery, "sent");
  const auto report = [&](const std::string& status) {
    conn.ExecText(
        "UPDATE chopar.deliveries SET provider_status = $2, provider = 'postmark' "
        "WHERE id = $1",
        db::Params(delivery, status));
  };
  report("delivered");
  report("delivered");  // no change: no second event
  report("bounced");
  report("read");  // WhatsApp's read is no event of these
  report("complained");
  EXPECT_EQ(Events(), (std::vector<std::string>{"delivery.delivered 7", "delivery.bounced 7",
                                                "delivery.complained 7"}));
  const json bounced = Payload("delivery.bounced");
  EXPECT_EQ(bounced["provider_status"], "bounced");
  EXPECT_EQ(bounced["provider"], "postmark");
  EXPECT_EQ(bounced["status"], "sent");
}

TEST_F(ChoparEventsTest, OnlyTheSelectedEventsAreWritten) {
  auto conn = Session({"delivery.failed"});
  SetStatus(conn, Notify(conn), "sent");
  SetStatus(conn, Notify(conn), "failed");
  conn.ExecScript("UPDATE chopar.notifications SET read_at = now()");
  EXPECT_EQ(Events(), std::vector<std::string>{"delivery.failed 7"});
}

}  // namespace
}  // namespace chopar::outbox

namespace chopar::outbox {
namespace {

// Migration 0045: each change of an inbox state is its event, one per change
// of a row, only when selected.
TEST_F(ChoparEventsTest, EachInboxStateChangeIsItsEventOnce) {
  auto conn = Session({"notification.*"});
  Notify(conn, "first");
  const auto change = [&](const std::string& set) {
    conn.ExecScript("UPDATE chopar.notifications SET " + set + " WHERE title = 'first'");
  };
  change("seen_at = now()");
  change("read_at = now()");  // seen already: read only
  change("read_at = NULL");
  change("archived_at = now()");
  change("archived_at = NULL");
  change("snoozed_until = now() + interval '1 hour'");
  change("snoozed_until = now() + interval '2 hours'");            // another time: snoozed again
  change("snoozed_until = NULL, read_at = NULL, seen_at = NULL");  // back: unsnoozed only
  change("read_at = now(), seen_at = now()");                      // read (and seen): read only
  change("title = 'first'");                                       // no state changed
  EXPECT_EQ(Events(),
            (std::vector<std::string>{"notification.created 7", "notification.seen 7",
                                      "notification.read 7", "notification.unread 7",
                                      "notification.archived 7", "notification.unarchived 7",
                                      "notification.snoozed 7", "notification.snoozed 7",
                                      "notification.unsnoozed 7", "notification.read 7"}));
  const json unsnoozed = Payload("notification.unsnoozed");
  EXPECT_EQ(unsnoozed["title"], "first");
  EXPECT_TRUE(unsnoozed["snoozed_until"].is_null());
  EXPECT_TRUE(unsnoozed["read_at"].is_null());
  EXPECT_TRUE(Payload("notification.archived")["archived_at"].is_string());
}

TEST_F(ChoparEventsTest, AnInboxStateEventIsWrittenOnlyWhenSelected) {
  auto conn = Session({"notification.archived"});
  Notify(conn);
  conn.ExecScript("UPDATE chopar.notifications SET seen_at = now(), read_at = now()");
  conn.ExecScript("UPDATE chopar.notifications SET archived_at = now()");
  EXPECT_EQ(Events(), (std::vector<std::string>{"notification.archived 7"}));
}

}  // namespace
}  // namespace chopar::outbox
