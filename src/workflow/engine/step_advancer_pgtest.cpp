// The workflow step advancer against a real PostgreSQL: the escalation
// example of docs/api.md "Workflows with steps" (in-app now; unseen after
// 10 minutes and on the pro plan → push; push failed or no device → email),
// each of its branches, throttle steps, cancel, and advancers in several
// threads doing each step once. Deliveries end by the statement a worker
// would run (an UPDATE of their status), which wakes their run through the
// trigger of migration 0049.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "hub/notify_service.hpp"
#include "templates/template.hpp"
#include "testing/one_template.hpp"
#include "testing/test_database.hpp"
#include "workflow/engine/cancel.hpp"
#include "workflow/engine/digest_closer.hpp"
#include "workflow/engine/step_advancer.hpp"

namespace chopar::workflow::engine {
namespace {

using namespace std::chrono_literals;
using testing::OneTemplate;

const char* const kEscalation = R"({
  "default_locale": "en",
  "locales": {"en": {"title": "Task {{task}} is due"}},
  "steps": [
    {"type": "delay", "seconds": 600},
    {"type": "channel", "first_of": ["push", "email"], "name": "reminder",
     "condition": "notification.seen == false && user.data.plan == \"pro\""}]})";

class StepAdvancerPgTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    // User 1: pro, with a push subscription and an email; user 2: free.
    db_->Scalar(
        "INSERT INTO chopar.users (id, email, data) VALUES (1, 'a@example.uz', "
        "'{\"plan\": \"pro\"}'), (2, 'b@example.uz', '{\"plan\": \"free\"}') RETURNING 1");
    db_->Scalar(
        "INSERT INTO chopar.push_subscriptions (user_id, endpoint, p256dh, auth) VALUES "
        "(1, 'https://push.example/1', repeat('P', 87), repeat('a', 22)) RETURNING 1");
  }

  void Use(const char* tmpl) {
    lookup_ = std::make_unique<OneTemplate>(
        templates::ParseTemplate("task.due", nlohmann::json::parse(tmpl)));
    notify_ = std::make_unique<hub::NotifyService>(*pool_, clock_, metrics_, lookup_.get());
    advancer_ = std::make_unique<StepAdvancer>(*pool_, clock_, *lookup_, metrics_);
  }

  std::int64_t Notify(std::int64_t user, const std::string& key = "") {
    hub::NotificationRequest r;
    r.user_id = user;
    r.type = "task.due";
    r.data = {{"task", 7}};
    if (!key.empty()) r.cancellation_key = key;
    return notify_->Notify(r).id;
  }

  std::string Deliveries(std::int64_t id) {
    return db_->Scalar(
        "SELECT coalesce(string_agg(channel || ':' || status, ',' ORDER BY id), '') FROM "
        "chopar.deliveries WHERE notification_id = " +
        std::to_string(id));
  }
  std::string Outcomes(std::int64_t id) {
    return db_->Scalar(
        "SELECT coalesce(string_agg(o ->> 'outcome', ',' ORDER BY k), '') FROM "
        "chopar.workflow_runs, jsonb_array_elements(outcomes) WITH ORDINALITY e(o, k) WHERE "
        "notification_id = " +
        std::to_string(id));
  }
  std::string Status(std::int64_t id) {
    return db_->Scalar("SELECT status FROM chopar.workflow_runs WHERE notification_id = " +
                       std::to_string(id));
  }
  // What a worker's record does when the send of `channel` ends.
  void End(std::int64_t id, const std::string& channel, const std::string& status) {
    db_->Scalar("WITH u AS (UPDATE chopar.deliveries SET status = '" + status +
                "', claimed_at = now(), sent_at = now(), last_error = CASE WHEN '" + status +
                "' = 'failed' THEN 'address gone' END WHERE notification_id = " +
                std::to_string(id) + " AND channel = '" + channel +
                "' AND status = 'queued' RETURNING 1) SELECT count(*) FROM u");
  }

  // Ahead of the database's clock: a delivery's end makes its run due at
  // the database's now(), which must not be later than the test's.
  core::SimulatedClock clock_{core::SystemClock().Now() + 1h};
  core::MetricsRegistry metrics_;
  std::unique_ptr<OneTemplate> lookup_;
  std::unique_ptr<hub::NotifyService> notify_;
  std::unique_ptr<StepAdvancer> advancer_;
};

TEST_F(StepAdvancerPgTest, UnseenProPushGoneThenEmail) {
  if (IsSkipped()) return;
  Use(kEscalation);
  const std::int64_t id = Notify(1);
  EXPECT_EQ(Deliveries(id), "") << "in-app only at first";
  EXPECT_EQ(Outcomes(id), "delayed") << "the delay is done by notify, in its statement";
  EXPECT_EQ(advancer_->RunOnce(), 0) << "not before the delay ends";
  clock_.Advance(601s);
  EXPECT_EQ(advancer_->RunOnce(), 1);
  EXPECT_EQ(Deliveries(id), "push:queued");
  EXPECT_EQ(Status(id), "waiting");
  EXPECT_EQ(advancer_->RunOnce(), 0) << "waits for the push";
  End(id, "push", "failed");
  EXPECT_EQ(Status(id), "active") << "the delivery's end woke the run";
  EXPECT_EQ(advancer_->RunOnce(), 1);
  EXPECT_EQ(Deliveries(id), "push:failed,email:queued");
  End(id, "email", "sent");
  EXPECT_EQ(advancer_->RunOnce(), 1);
  EXPECT_EQ(Outcomes(id), "delayed,sent");
  EXPECT_EQ(Status(id), "done");
  EXPECT_EQ(db_->Scalar("SELECT outcomes -> 1 ->> 'channel' FROM chopar.workflow_runs"), "email");
}

TEST_F(StepAdvancerPgTest, SeenInTimeSendsNothingMore) {
  if (IsSkipped()) return;
  Use(kEscalation);
  const std::int64_t id = Notify(1);
  advancer_->RunOnce();
  db_->Scalar("UPDATE chopar.notifications SET seen_at = now() WHERE id = " + std::to_string(id) +
              " RETURNING 1");
  clock_.Advance(601s);
  EXPECT_EQ(advancer_->RunOnce(), 1);
  EXPECT_EQ(Deliveries(id), "");
  EXPECT_EQ(Outcomes(id), "delayed,condition_false");
  EXPECT_EQ(Status(id), "done");
}

TEST_F(StepAdvancerPgTest, ConditionFalseForTheFreePlanSendsNothing) {
  if (IsSkipped()) return;
  Use(kEscalation);
  const std::int64_t id = Notify(2);
  advancer_->RunOnce();
  clock_.Advance(601s);
  advancer_->RunOnce();
  EXPECT_EQ(Deliveries(id), "");
  EXPECT_EQ(Outcomes(id), "delayed,condition_false");
}

TEST_F(StepAdvancerPgTest, NoDeviceGoesStraightToEmail) {
  if (IsSkipped()) return;
  Use(kEscalation);
  db_->Scalar("DELETE FROM chopar.push_subscriptions RETURNING 1");
  const std::int64_t id = Notify(1);
  advancer_->RunOnce();
  clock_.Advance(601s);
  advancer_->RunOnce();
  EXPECT_EQ(Deliveries(id), "email:queued");
}

TEST_F(StepAdvancerPgTest, EveryChannelFailingEndsTheStepFailedAndTheNextStepSeesIt) {
  if (IsSkipped()) return;
  Use(R"({"default_locale": "en", "locales": {"en": {"title": "t"}},
          "steps": [{"type": "channel", "first_of": ["push", "email"]},
                    {"type": "channel", "channel": "sms", "condition": "steps[0].outcome == \"failed\""}]})");
  db_->Scalar("UPDATE chopar.users SET phone = '+998901234567' RETURNING 1");
  db_->Scalar("UPDATE chopar.users SET preferences = '{\"sms\": true}' WHERE id = 1 RETURNING 1");
  const std::int64_t id = Notify(1);
  advancer_->RunOnce();
  End(id, "push", "failed");
  advancer_->RunOnce();
  End(id, "email", "failed");
  advancer_->RunOnce();
  EXPECT_EQ(Deliveries(id), "push:failed,email:failed,sms:queued");
  EXPECT_EQ(Outcomes(id), "failed,queued")
      << "nothing reads the sms step's outcome: not waited for";
  EXPECT_EQ(Status(id), "done");
}

TEST_F(StepAdvancerPgTest, ThrottleStepPassesTheLimitAndEndsTheRest) {
  if (IsSkipped()) return;
  Use(R"({"default_locale": "en", "locales": {"en": {"title": "t"}},
          "steps": [{"type": "throttle", "limit": 2, "window_seconds": 3600},
                    {"type": "channel", "channel": "email"}]})");
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Notify(1));
  while (advancer_->RunOnce() > 0) {
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 2);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.workflow_runs WHERE outcomes -> 0 ->> "
                       "'outcome' = 'throttled' AND status = 'done'"),
            3);
}

TEST_F(StepAdvancerPgTest, DigestStepGathersAWindowAndItsNewestCarriesItOn) {
  if (IsSkipped()) return;
  Use(R"({"default_locale": "en", "locales": {"en": {"title": "Task {{task}}"}},
          "steps": [{"type": "digest", "window_seconds": 60, "max_items": 50},
                    {"type": "channel", "channel": "email"}]})");
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(Notify(1));
  EXPECT_EQ(advancer_->RunOnce(), 4);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.workflow_runs WHERE status = 'waiting' AND "
                       "waits_on = 'digest'"),
            4);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.digests WHERE workflow"), 1)
      << "one window for the four";
  DigestCloser closer(*pool_, clock_, metrics_, lookup_.get());
  EXPECT_EQ(closer.RunOnce(), 0) << "not before the window closes";
  clock_.Advance(61s);
  EXPECT_EQ(closer.RunOnce(), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 0)
      << "the closer queues nothing for runs' windows";
  EXPECT_EQ(advancer_->RunOnce(), 4);
  EXPECT_EQ(Outcomes(ids.back()), "digest_closed,queued");
  EXPECT_EQ(Deliveries(ids.back()), "email:queued");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Outcomes(ids[static_cast<std::size_t>(i)]), "digested");
    EXPECT_EQ(Status(ids[static_cast<std::size_t>(i)]), "done");
  }
  EXPECT_EQ(db_->Scalar("SELECT g.content ->> 'title' FROM chopar.deliveries d JOIN "
                        "chopar.digests g ON g.id = d.digest_id"),
            "Task 7")
      << "the digest's content, rendered by the closer";
  EXPECT_EQ(db_->Count("SELECT (g.item_count) FROM chopar.digests g"), 4);
}

TEST_F(StepAdvancerPgTest, ARunWaitsForItsTemplateAWhileThenEnds) {
  if (IsSkipped()) return;
  // Notify stops at the waited step, due at once, for an advancer.
  Use(R"({"default_locale": "en", "locales": {"en": {"title": "t"}},
          "steps": [{"type": "channel", "first_of": ["email"]},
                    {"type": "delay", "seconds": 600},
                    {"type": "channel", "channel": "push"}]})");
  const std::int64_t id = Notify(1);
  // An advancer whose templates have not heard of the steps yet.
  const OneTemplate stale(templates::ParseTemplate(
      "task.due",
      nlohmann::json::parse(R"({"default_locale": "en", "locales": {"en": {"title": "t"}}})")));
  StepAdvancer behind(*pool_, clock_, stale, metrics_);
  EXPECT_EQ(behind.RunOnce(), 1);
  EXPECT_EQ(Status(id), "active") << "asked again shortly";
  EXPECT_EQ(Outcomes(id), "");
  clock_.Advance(3s);
  EXPECT_EQ(advancer_->RunOnce(), 1) << "a process that knows the steps goes on";
  EXPECT_EQ(Deliveries(id), "email:queued");
  clock_.Advance(61s);
  End(id, "email", "sent");
  EXPECT_EQ(behind.RunOnce(), 1);
  EXPECT_EQ(Status(id), "done") << "no steps a minute on: the run ends";
  EXPECT_EQ(Outcomes(id), "ended");
}

TEST_F(StepAdvancerPgTest, CancelStopsTheStepsLeft) {
  if (IsSkipped()) return;
  Use(kEscalation);
  const std::int64_t id = Notify(1, "task-7");
  advancer_->RunOnce();
  Canceler canceler(*pool_, metrics_);
  EXPECT_EQ(canceler.Cancel({.cancellation_key = "task-7", .user_id = std::nullopt}), 1);
  clock_.Advance(601s);
  EXPECT_EQ(advancer_->RunOnce(), 0);
  EXPECT_EQ(Status(id), "canceled");
  EXPECT_EQ(Deliveries(id), "");
  EXPECT_EQ(Outcomes(id), "delayed,canceled");
}

TEST_F(StepAdvancerPgTest, CancelWhileWaitingCancelsTheDeliveryAndTheRun) {
  if (IsSkipped()) return;
  Use(R"({"default_locale": "en", "locales": {"en": {"title": "t"}},
          "steps": [{"type": "channel", "first_of": ["email"]}, {"type": "channel", "channel": "push"}]})");
  const std::int64_t id = Notify(1, "k");
  advancer_->RunOnce();
  Canceler canceler(*pool_, metrics_);
  canceler.Cancel({.cancellation_key = "k", .user_id = std::nullopt});
  EXPECT_EQ(Deliveries(id), "email:canceled");
  EXPECT_EQ(Status(id), "canceled");
  EXPECT_EQ(advancer_->RunOnce(), 0);
}

TEST_F(StepAdvancerPgTest, FourAdvancersDoEachStepOnce) {
  if (IsSkipped()) return;
  // The push step reads the email's outcome, so the run waits for it.
  Use(R"({"default_locale": "en", "locales": {"en": {"title": "t"}},
          "steps": [{"type": "channel", "channel": "email"},
                    {"type": "channel", "channel": "push", "condition": "steps[0].outcome == \"sent\""}]})");
  constexpr int kRuns = 400;
  for (int i = 0; i < kRuns; ++i) Notify(1 + i % 2);
  std::vector<std::unique_ptr<StepAdvancer>> advancers;
  for (int i = 0; i < 4; ++i)
    advancers.push_back(std::make_unique<StepAdvancer>(*pool_, clock_, *lookup_, metrics_,
                                                       StepAdvancerSettings{.batch = 25}));
  const auto all_at_once = [&] {
    std::vector<std::thread> threads;
    for (auto& advancer : advancers) threads.emplace_back([&] { advancer->RunOnce(); });
    for (auto& t : threads) t.join();
  };
  all_at_once();
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"), kRuns);
  // Every email sent at once (as workers would, while advancers run).
  std::thread ender([&] {
    db_->Scalar(
        "WITH u AS (UPDATE chopar.deliveries SET status = 'sent', claimed_at = now(), "
        "sent_at = now() WHERE status = "
        "'queued' RETURNING 1) SELECT count(*) FROM u");
  });
  all_at_once();
  ender.join();
  all_at_once();
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'push'"), kRuns / 2)
      << "user 2 has no push subscription: skipped";
  EXPECT_EQ(db_->Count("SELECT count(*) FROM (SELECT notification_id, channel FROM "
                       "chopar.deliveries GROUP BY 1, 2 HAVING count(*) > 1) d"),
            0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.workflow_runs WHERE status = 'done'"), kRuns)
      << "the push step is not waited for: nothing reads its outcome";
}

}  // namespace
}  // namespace chopar::workflow::engine
