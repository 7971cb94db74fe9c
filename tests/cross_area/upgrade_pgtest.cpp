// An upgrade from 946804a with work pending: the delayed notifications and
// the broadcasts that release wrote (tests/cross_area/data) are released
// and fanned out by this one, each as it was asked for. Their stored forms
// are read by hub/stored_request.hpp's decoder of their version, never by
// the API's validator.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "broadcast/fan_out.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/migrate.hpp"
#include "db/pool.hpp"
#include "hub/stored_request.hpp"
#include "testing/test_database.hpp"
#include "workflow/engine/releaser.hpp"

namespace chopar {
namespace {

using namespace std::chrono_literals;

// The schema version 946804a left (its newest migration).
constexpr int kVersionOf946804a = 22;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class UpgradeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    db_ = std::make_unique<testing::TestDatabase>(testing::TestDatabase::Contents::kEmpty);
    // The database as 946804a left it: its migrations, then its rows.
    const std::span<const db::Migration> all = db::EmbeddedMigrations();
    const auto old_count = static_cast<std::size_t>(std::ranges::count_if(
        all, [](const db::Migration& m) { return m.version <= kVersionOf946804a; }));
    db::Connection conn = db_->Connect();
    db::Migrate(conn, all.first(old_count));
    const std::string rows =
        ReadFile(std::string(CHOPAR_CROSS_AREA_DATA) + "/946804a_pending_work.sql");
    ASSERT_NE(rows.find("INSERT INTO chopar.delayed_notifications"), std::string::npos);
    conn.ExecScript(rows);
    // This release starts: its migrations run over that.
    db::Migrate(conn, all);
    db::PoolSettings settings;
    settings.conninfo = db_->url();
    settings.size = 4;
    pool_ = std::make_unique<db::Pool>(settings);
  }

  std::unique_ptr<testing::TestDatabase> db_;
  std::unique_ptr<db::Pool> pool_;
};

TEST_F(UpgradeTest, DelayedNotificationsAndBroadcastsWrittenBy946804aAreReleasedAsAskedFor) {
  if (IsSkipped()) return;
  EXPECT_EQ(db_->Scalar("SELECT string_agg(DISTINCT request_version::text, ',') "
                        "FROM chopar.delayed_notifications"),
            "1");
  EXPECT_EQ(db_->Scalar("SELECT string_agg(DISTINCT notification_version::text, ',') "
                        "FROM chopar.broadcasts"),
            "1");
  // Both delayed notifications fall due (one was an hour away, one in 2030).
  db_->Scalar("UPDATE chopar.delayed_notifications SET due_at = now() - interval '1 minute'");
  core::MetricsRegistry metrics;
  core::SystemClock clock;
  workflow::engine::Releaser releaser(*pool_, clock, metrics, nullptr);
  EXPECT_EQ(releaser.RunOnce(), 2);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.delayed_notifications"), 0)
      << "none kept as failed: "
      << db_->Scalar("SELECT string_agg(last_error, '; ') FROM chopar.delayed_notifications");
  // Each with the id its POST answered and every field it was asked with.
  EXPECT_EQ(db_->Scalar("SELECT concat_ws('|', user_id, type, title, body, link, category, "
                        "data::text, critical, dedup_key, cancellation_key) "
                        "FROM chopar.notifications WHERE id = 1"),
            "1|task.due|Vazifa muddati|Hisobot ertaga|/tasks/7|tasks|{\"task_id\": 7}|t|task:7|"
            "task-7");
  EXPECT_EQ(db_->Scalar("SELECT string_agg(channel, ',') FROM chopar.deliveries "
                        "WHERE notification_id = 1"),
            "email")
      << "only the channel it asked for";
  EXPECT_EQ(db_->Scalar("SELECT concat_ws('|', user_id, type, title, critical) "
                        "FROM chopar.notifications WHERE id = 2"),
            "2|pill.reminder|Pill|f");

  // The broadcasts: one at once to both users, one a minute after its
  // fan-out (delay_seconds), stored as delayed notifications of this
  // release's form.
  broadcast::FanOut fan_out(*pool_, clock, metrics);
  EXPECT_GE(fan_out.RunOnce(), 2);
  EXPECT_EQ(db_->Scalar("SELECT string_agg(user_id || ':' || title || ':' || link || ':' || "
                        "data::text, ',' ORDER BY user_id) FROM chopar.notifications "
                        "WHERE type = 'news.post'"),
            "1:Yangilik:/news/3:{\"post\": 3},2:Yangilik:/news/3:{\"post\": 3}");
  EXPECT_EQ(db_->Scalar("SELECT string_agg(DISTINCT d.channel, ',') FROM chopar.deliveries d "
                        "JOIN chopar.notifications n ON n.id = d.notification_id "
                        "WHERE n.type = 'news.post'"),
            "email")
      << "email and push asked for; the users have only an email address";
  EXPECT_EQ(db_->Scalar("SELECT count(*) || ':' || min(request_version) FROM "
                        "chopar.delayed_notifications"),
            "2:1")
      << "a request in no tenant is written in version 1 (hub::StoredRequestVersionOf)";
  core::SimulatedClock later(clock.Now() + 61s);
  workflow::engine::Releaser later_releaser(*pool_, later, metrics, nullptr);
  EXPECT_EQ(later_releaser.RunOnce(), 2);
  EXPECT_EQ(db_->Scalar("SELECT string_agg(user_id || ':' || title || ':' || "
                        "(dedup_key = 'broadcast:2'), ',' ORDER BY user_id) "
                        "FROM chopar.notifications WHERE type = 'news.digest'"),
            "1:Haftalik:true,2:Haftalik:true");
  EXPECT_EQ(db_->Scalar("SELECT string_agg(status, ',') FROM chopar.broadcasts"), "done,done");
}

}  // namespace
}  // namespace chopar
