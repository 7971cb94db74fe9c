// The releaser of delayed notifications against a real PostgreSQL: a stored
// request that no longer makes a notification when it falls due is kept,
// marked failed, logged and counted, never retried.
#include "workflow/engine/releaser.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "hub/notify_service.hpp"
#include "templates/template.hpp"
#include "templates/template_store.hpp"
#include "testing/log_capture.hpp"
#include "testing/one_template.hpp"
#include "testing/test_database.hpp"

namespace chopar::workflow::engine {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

using testing::OneTemplate;

class ReleaserPgTest : public testing::PgTest {};

// A notification without a title, asked for in a minute: its type's
// template gives the title. The template is gone when it falls due, so the
// request no longer validates ("title is required").
TEST_F(ReleaserPgTest, ARequestThatNoLongerValidatesIsKeptAsFailedLoggedAndCounted) {
  if (IsSkipped()) return;
  db_->Scalar("INSERT INTO chopar.users (id, email) VALUES (1, 'u1@example.uz') RETURNING 1");
  const OneTemplate lookup(templates::ParseTemplate(
      "release.note",
      {{"default_locale", "en"}, {"locales", {{"en", {{"title", "Hello {{user.id}}"}}}}}}));
  core::SimulatedClock clock(core::SystemClock().Now());
  core::MetricsRegistry metrics;
  hub::NotifyService notify(*pool_, clock, metrics, &lookup);
  const auto untitled = notify.Notify(hub::ParseNotificationRequest(
      {{"user_id", 1}, {"type", "release.note"}, {"channels", {"email"}}, {"delay_seconds", 60}}));
  const auto titled = notify.Notify(hub::ParseNotificationRequest(
      {{"user_id", 1}, {"type", "task.due"}, {"title", "Pay"}, {"delay_seconds", 60}}));
  ASSERT_EQ(db_->Count("SELECT count(*) FROM chopar.delayed_notifications"), 2);
  const std::string row = db_->Scalar(
      "SELECT id FROM chopar.delayed_notifications WHERE notification_id = " +
      std::to_string(untitled.id));

  Releaser releaser(*pool_, clock, metrics, nullptr);
  clock.Advance(61s);
  testing::LogCapture logs;
  EXPECT_EQ(releaser.RunOnce(), 2);

  // The valid one is released; the other is kept with the reason.
  EXPECT_EQ(db_->Scalar("SELECT string_agg(id::text, ',') FROM chopar.notifications"),
            std::to_string(titled.id));
  EXPECT_EQ(db_->Scalar("SELECT id || ' ' || (failed_at IS NOT NULL) FROM "
                        "chopar.delayed_notifications"),
            row + " true");
  const std::string reason =
      db_->Scalar("SELECT last_error FROM chopar.delayed_notifications WHERE id = " + row);
  EXPECT_NE(reason.find("title"), std::string::npos) << reason;
  EXPECT_NE(metrics.Render().find("chopar_delayed_notifications_invalid_total 1\n"),
            std::string::npos)
      << metrics.Render();
  const std::string logged = logs.Text();
  EXPECT_NE(logged.find("delayed notification " + row + " "), std::string::npos) << logged;
  EXPECT_NE(logged.find(reason), std::string::npos) << logged;

  // Out of the due set: never retried, nothing to wait for.
  clock.Advance(1h);
  EXPECT_EQ(releaser.RunOnce(), 0);
  EXPECT_FALSE(releaser.NextDue().has_value());
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.delayed_notifications"), 1);
  EXPECT_NE(metrics.Render().find("chopar_delayed_notifications_invalid_total 1\n"),
            std::string::npos);
}

// A late event for a user being erased (docs/privacy.md) is dropped: the
// user's delayed notification falls due and makes no notification; the
// other user's is released.
TEST_F(ReleaserPgTest, ADelayedNotificationOfAUserBeingErasedMakesNoNotification) {
  if (IsSkipped()) return;
  db_->Scalar(
      "INSERT INTO chopar.users (id, email) VALUES (1, 'u1@example.uz'), "
      "(2, 'u2@example.uz') RETURNING 1");
  core::SimulatedClock clock(core::SystemClock().Now());
  core::MetricsRegistry metrics;
  hub::NotifyService notify(*pool_, clock, metrics);
  for (const int user : {1, 2}) {
    (void)notify.Notify(hub::ParseNotificationRequest(
        {{"user_id", user}, {"type", "task.due"}, {"title", "Pay"}, {"delay_seconds", 60}}));
  }
  db_->Scalar("UPDATE chopar.users SET erasing = true WHERE id = 1 RETURNING id");

  Releaser releaser(*pool_, clock, metrics, nullptr);
  clock.Advance(61s);
  (void)releaser.RunOnce();
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 1"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 2"), 1);
}

}  // namespace
}  // namespace chopar::workflow::engine
