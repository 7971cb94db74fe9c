// The notify target: events become chopar notifications, once each.
#include <gtest/gtest.h>

#include "core/time_format.hpp"
#include "outbox/notify_target.hpp"
#include "testing/test_database.hpp"

namespace chopar::outbox {
namespace {

Event MakeEvent(const std::string& id, const std::string& type, std::optional<std::int64_t> user_id,
                const std::string& payload) {
  Event event;
  event.event_id = id;
  event.type = type;
  event.user_id = user_id;
  event.payload = payload;
  event.created_at = *core::ParseRfc3339("2026-10-28T13:05:00Z");
  event.body = EventBody(event);
  return event;
}

class NotifyTargetTest : public chopar::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    db_->Connect().ExecScript(
        "INSERT INTO chopar.users (id, email) VALUES (5, 'aziz@example.uz'), (6, NULL)");
    settings_.kind = "notify";
    settings_.name = "notify";
    settings_.title = "{{payload.title}}";
    settings_.body = "{{payload.body}} ({{type}})";
    settings_.link = "{{#payload.task_id}}/tasks/{{payload.task_id}}{{/payload.task_id}}";
  }
  std::vector<PublishOutcome> Publish(NotifyTarget& target, const std::vector<Event>& events) {
    std::vector<const Event*> pointers;
    for (const Event& e : events) pointers.push_back(&e);
    return target.Publish(pointers);
  }
  TargetSettings settings_;
  core::SystemClock clock_;
  core::MetricsRegistry metrics_;
};

TEST_F(NotifyTargetTest, AnEventBecomesOneNotificationEvenWhenPublishedAgain) {
  NotifyTarget target(settings_, *pool_, clock_, metrics_);
  const Event event =
      MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a01", "task.due", 1,
                R"({"user_id": 5, "title": "Muddat yaqin", "body": "Non <olish>", "task_id": 17})");
  for (int delivery = 0; delivery < 3; ++delivery) {
    const auto outcomes = Publish(target, {event});
    ASSERT_EQ(outcomes.size(), 1u);
    EXPECT_TRUE(outcomes[0].ok) << outcomes[0].error;
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 1);
  EXPECT_EQ(
      db_->Scalar(
          "SELECT user_id || '|' || type || '|' || title || '|' || body || '|' || link || '|' || "
          "dedup_key FROM chopar.notifications"),
      "5|task.due|Muddat yaqin|Non <olish> (task.due)|/tasks/17|event:" + event.event_id);
  EXPECT_EQ(db_->Scalar("SELECT data->>'event_id' || '|' || (data->'payload'->>'task_id') FROM "
                        "chopar.notifications"),
            event.event_id + "|17");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 1)
      << "email, the one addressable channel";
}

TEST_F(NotifyTargetTest, TheEventsUserIdServesWhenThePayloadHasNone) {
  settings_.channels = {"email"};
  settings_.critical = true;
  NotifyTarget target(settings_, *pool_, clock_, metrics_);
  const auto outcomes = Publish(target, {MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a02",
                                                   "report.ready", 6, R"({"title": "Tayyor"})")});
  EXPECT_TRUE(outcomes[0].ok) << outcomes[0].error;
  EXPECT_EQ(
      db_->Scalar(
          "SELECT user_id || '|' || critical || '|' || (link IS NULL) FROM chopar.notifications"),
      "6|true|true");
}

TEST_F(NotifyTargetTest, AnEventThatMakesNoValidNotificationFailsAloneWithTheReason) {
  NotifyTarget target(settings_, *pool_, clock_, metrics_);
  settings_.link = "{{payload.link}}";
  NotifyTarget linking(settings_, *pool_, clock_, metrics_);
  const auto outcomes = Publish(
      target,
      {MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a03", "task.due", std::nullopt,
                 R"({"title": "x"})"),
       MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a04", "task.due", 404, R"({"title": "x"})"),
       MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a05", "Task.Due", 5, R"({"title": "x"})"),
       MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a06", "task.due", 5, R"({"body": "no title"})"),
       MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a07", "task.due", 5, R"({"title": "fine"})")});
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(outcomes[0].error, "the event has no user_id (nor payload.user_id)");
  EXPECT_EQ(outcomes[1].error, "user 404 does not exist");
  EXPECT_NE(outcomes[2].error.find("type must match"), std::string::npos) << outcomes[2].error;
  EXPECT_NE(outcomes[3].error.find("title"), std::string::npos) << outcomes[3].error;
  EXPECT_TRUE(outcomes[4].ok);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_FALSE(outcomes[i].unavailable);

  const auto external =
      Publish(linking, {MakeEvent("3f2b8e1a-8c1d-4a6e-9b7f-0c2d4e6f8a08", "task.due", 5,
                                  R"({"title": "x", "link": "https://evil.example/"})")});
  EXPECT_NE(external[0].error.find("internal path"), std::string::npos) << external[0].error;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 1);
}

TEST_F(NotifyTargetTest, RefusesATemplateThatDoesNotParse) {
  settings_.body = "{{#open}} never closed";
  EXPECT_THROW(NotifyTarget(settings_, *pool_, clock_, metrics_), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::outbox
