// Snoozed inbox items come back exactly once (docs/api.md "Inbox states")
// whatever the `chopar scheduler` processes that bring them back do: two
// running at once, or one killed (SIGKILL) in the middle of a batch and
// another started after it.
//
// The kill's window is made wide deterministically: the test holds
// chopar.outbox locked (EXCLUSIVE) in a transaction it keeps open, so the
// batch's statement, whose own events go there, waits with its rows changed
// and not committed; the process is killed once the test sees it waiting.

#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "../blackbox_support.hpp"
#include "db/connection.hpp"
#include "fault_support.hpp"
#include "testing/test_server.hpp"

namespace chopar {
namespace {

using namespace std::chrono_literals;
using testing::TestServer;
using testing::WaitUntil;

constexpr const char* kApiKey = "snooze-faults-key";
constexpr int kUsers = 50;
constexpr int kPerUser = 200;  // 10 000 items: 20 batches of 500
constexpr int kItems = kUsers * kPerUser;

class SnoozeFaults : public testing::DatabaseBlackBox {
 protected:
  void SetUp() override {
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    if (!TestServer::Available()) {
      GTEST_SKIP() << "needs scripts/with-test-pg (CHOPAR_TEST_PG_DATA and friends)";
    }
    db_->Scalar(
        "INSERT INTO chopar.users (id, email) SELECT i, 'u' || i || '@example.uz' "
        "FROM generate_series(1, " +
        std::to_string(kUsers) + ") i");
  }

  // kItems read notifications, snoozed until `until` (SQL).
  void Snooze(const std::string& until) {
    db_->Scalar(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, read_at, seen_at, "
        "snoozed_until) SELECT u, 'snooze.fault', 'n', now(), now(), " +
        until + " FROM generate_series(1, " + std::to_string(kUsers) + ") u, generate_series(1, " +
        std::to_string(kPerUser) + ") RETURNING 1) SELECT count(*) FROM n");
  }

  std::unique_ptr<testing::ChildProcess> StartScheduler(const std::string& log) {
    return Start("scheduler", testing::FreeLoopbackPort(),
                 DatabaseEnv(kApiKey, {{"CHOPAR_EVENTS_EMIT", "notification.unsnoozed"}}), log);
  }

  std::int64_t StillSnoozed() {
    return db_->Count("SELECT count(*) FROM chopar.notifications WHERE snoozed_until IS NOT NULL");
  }

  // Each item back exactly once: unread, unseen, one event each.
  void ExpectEachBackOnce() {
    EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE snoozed_until IS NULL "
                         "AND read_at IS NULL AND seen_at IS NULL"),
              kItems);
    EXPECT_EQ(
        db_->Count("SELECT count(*) FROM chopar.outbox WHERE type = 'notification.unsnoozed'"),
        kItems);
    EXPECT_EQ(db_->Count("SELECT count(DISTINCT payload->>'id') FROM chopar.outbox "
                         "WHERE type = 'notification.unsnoozed'"),
              kItems);
  }
};

// Both processes start before the snoozes end and sleep until then: when
// the items fall due, both take batches of them at once.
TEST_F(SnoozeFaults, TwoProcessesAtOnceBringEachItemBackOnce) {
  if (IsSkipped()) return;
  Snooze("now() + interval '4 seconds'");
  auto first = StartScheduler("scheduler-1.log");
  auto second = StartScheduler("scheduler-2.log");
  ASSERT_TRUE(WaitUntil([&] { return StillSnoozed() == 0; }, 60s))
      << StillSnoozed() << " still snoozed";
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db_->Count(
                   "SELECT count(*) FROM chopar.outbox WHERE type = "
                   "'notification.unsnoozed'") >= kItems;
      },
      30s));
  ExpectEachBackOnce();
  first->Signal(SIGTERM);
  second->Signal(SIGTERM);
  EXPECT_EQ(first->Wait(30s), 0);
  EXPECT_EQ(second->Wait(30s), 0);
}

TEST_F(SnoozeFaults, KilledMidBatchTheNextProcessBringsEachItemBackOnce) {
  if (IsSkipped()) return;
  Snooze("now() - interval '1 second'");
  db::Connection blocker = db_->Connect();
  blocker.ExecText("BEGIN", {});
  blocker.ExecText("LOCK TABLE chopar.outbox IN EXCLUSIVE MODE", {});

  auto killed = StartScheduler("scheduler-1.log");
  const auto backend = testing::AwaitBackendWaitingIn(*db_, "SET snoozed_until = NULL", 60s);
  ASSERT_TRUE(backend) << "the returner never reached its first batch";
  killed->Signal(SIGKILL);
  EXPECT_EQ(killed->Wait(10s), 128 + SIGKILL);
  // The dead process's batch never gets its COMMIT: its session ends when
  // it notices the client is gone, and the batch with it.
  blocker.ExecText("ROLLBACK", {});
  ASSERT_TRUE(WaitUntil([&] { return testing::BackendGone(*db_, *backend); }, 30s));
  EXPECT_EQ(StillSnoozed(), kItems) << "nothing of the killed batch came back";
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox"), 0);

  auto again = StartScheduler("scheduler-2.log");
  ASSERT_TRUE(WaitUntil([&] { return StillSnoozed() == 0; }, 60s))
      << StillSnoozed() << " still snoozed after the restart";
  ExpectEachBackOnce();
  again->Signal(SIGTERM);
  EXPECT_EQ(again->Wait(30s), 0);
}

}  // namespace
}  // namespace chopar
