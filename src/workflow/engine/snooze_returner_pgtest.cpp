// The snooze returner against a real PostgreSQL: an item comes back, unread
// and unseen, when its snooze ends, not before; returners running at once
// in several threads bring each back once, with one own event each.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/connection.hpp"
#include "hub/inbox_service.hpp"
#include "testing/test_database.hpp"
#include "workflow/engine/snooze_returner.hpp"

namespace chopar::workflow::engine {
namespace {

using namespace std::chrono_literals;

class SnoozeReturnerPgTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    db_->Scalar(
        "INSERT INTO chopar.users (id, email) VALUES (1, 'a@example.uz'), "
        "(2, 'b@example.uz') RETURNING 1");
    // chopar's own events (migration 0010's triggers, 0045's function).
    db_->Scalar("SELECT chopar.enable_own_events()");
  }
  // `n` notifications of each of users 1 and 2, read, snoozed until `until`
  // (SQL).
  void Snoozed(int n, const std::string& until) {
    db_->Scalar(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, read_at, seen_at, "
        "snoozed_until) SELECT u, 'task.due', 't', now(), now(), " +
        until + " FROM generate_series(1, " + std::to_string(n) +
        "), (VALUES (1), (2)) v(u) RETURNING 1) SELECT count(*) FROM n");
  }
  std::int64_t Count(const std::string& where) {
    return db_->Count("SELECT count(*) FROM chopar.notifications WHERE " + where);
  }
};

TEST_F(SnoozeReturnerPgTest, AnItemComesBackUnreadWhenItsSnoozeEnds) {
  if (IsSkipped()) return;
  core::SimulatedClock clock(core::SystemClock().Now());
  core::MetricsRegistry metrics;
  SnoozeReturner returner(*pool_, clock, metrics);
  EXPECT_FALSE(returner.NextDue());
  Snoozed(1, "now() + interval '1 hour'");
  ASSERT_TRUE(returner.NextDue());
  EXPECT_EQ(returner.RunOnce(), 0) << "not before its end";
  clock.Advance(61min);
  EXPECT_EQ(returner.RunOnce(), 2);
  EXPECT_EQ(Count("snoozed_until IS NULL AND read_at IS NULL AND seen_at IS NULL"), 2);
  EXPECT_EQ(returner.RunOnce(), 0);
  EXPECT_FALSE(returner.NextDue());
  EXPECT_NE(metrics.Render().find("chopar_snoozed_returned_total 2\n"), std::string::npos)
      << metrics.Render();
  hub::InboxService inbox(*pool_);
  EXPECT_EQ(inbox.CountUnseenAndUnread(1, {}).unseen, 1);
}

// Batches of 50, four returners in four threads, each with its own pool
// (as processes would be): every item back once, one event each.
TEST_F(SnoozeReturnerPgTest, ReturnersAtOnceBringEachItemBackOnce) {
  if (IsSkipped()) return;
  Snoozed(500, "now() - interval '1 second'");
  std::vector<std::unique_ptr<db::Pool>> pools;
  // The session of a process with [events] emit = ["notification.unsnoozed"].
  const db::ServerSettings events{{"chopar.events", ",notification.unsnoozed,"}};
  core::SystemClock clock;
  core::MetricsRegistry metrics;
  std::vector<std::unique_ptr<SnoozeReturner>> returners;
  for (int i = 0; i < 4; ++i) {
    pools.push_back(
        std::make_unique<db::Pool>(db_->url(), 2, db::Pool::kDefaultAcquireTimeout, events));
    returners.push_back(std::make_unique<SnoozeReturner>(*pools.back(), clock, metrics,
                                                         SnoozeReturnerSettings{.batch = 50}));
  }
  std::atomic<int> returned{0};
  std::vector<std::thread> threads;
  for (auto& returner : returners) {
    threads.emplace_back([&returned, &returner] { returned += returner->RunOnce(); });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(returned, 1000);
  EXPECT_EQ(Count("snoozed_until IS NOT NULL OR read_at IS NOT NULL"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox WHERE type = 'notification.unsnoozed'"),
            1000);
  EXPECT_EQ(db_->Count("SELECT count(DISTINCT payload->>'id') FROM chopar.outbox"), 1000);
}

}  // namespace
}  // namespace chopar::workflow::engine
