// A user's erasure (docs/privacy.md) interrupted by SIGKILL of the
// `chopar worker` carrying it out, in the middle: the restarted worker
// completes it, and nothing of the user is left.
//
// The window is made wide deterministically: the test holds one of the
// user's notifications locked in a transaction it keeps open, so the
// erasure's batch of notifications waits for it — the batches of the kinds
// before (deliveries) are committed by then; the worker is killed once the
// test sees that batch waiting.

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

constexpr const char* kApiKey = "erasure-faults-key";
constexpr int kNotifications = 5000;

class ErasureFaults : public testing::DatabaseBlackBox {
 protected:
  void SetUp() override {
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    if (!TestServer::Available()) {
      GTEST_SKIP() << "needs scripts/with-test-pg (CHOPAR_TEST_PG_DATA and friends)";
    }
    TestServer::KeepCommitsThroughCrashes(db_->url());
    // User 5 with notifications and their deliveries, user 6 beside it.
    db_->Scalar(
        "INSERT INTO chopar.users (id, email) VALUES (5, 'erased@example.org'), "
        "(6, 'kept@example.org')");
    db_->Scalar(
        "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) "
        "SELECT u, 'erasure.fault', 'n' FROM generate_series(1, " +
        std::to_string(kNotifications) +
        "), (VALUES (5), (6)) v(u) RETURNING id, user_id, created_at) "
        "INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, created_at) "
        "SELECT id, user_id, 'email', 'failed', created_at FROM n");
  }

  std::unique_ptr<testing::ChildProcess> StartWorker(const std::string& log) {
    return Start("worker", testing::FreeLoopbackPort(), DatabaseEnv(kApiKey), log);
  }

  std::int64_t Rows(const std::string& table, int user) {
    return db_->Count("SELECT count(*) FROM chopar." + table +
                      " WHERE user_id = " + std::to_string(user));
  }
};

TEST_F(ErasureFaults, KilledMidErasureTheNextWorkerCompletesIt) {
  if (IsSkipped()) return;
  // Hold one of the user's notifications: the erasure's batches of
  // notifications wait for it.
  db::Connection blocker = db_->Connect();
  blocker.ExecText("BEGIN", {});
  blocker.ExecText(
      "SELECT 1 FROM chopar.notifications WHERE user_id = 5 ORDER BY id DESC LIMIT 1 FOR UPDATE",
      {});
  db_->Scalar("UPDATE chopar.users SET erasing = true WHERE id = 5");
  db_->Scalar("INSERT INTO chopar.user_erasures (user_id) VALUES (5)");

  auto worker = StartWorker("worker-1.log");
  const auto backend =
      testing::AwaitBackendWaitingIn(*db_, "DELETE FROM chopar.notifications", 60s);
  ASSERT_TRUE(backend) << "the erasure never reached the notifications";
  // Mid-way: the deliveries are gone, the notifications are not (a batch
  // waits for the one held).
  EXPECT_EQ(Rows("deliveries", 5), 0);
  EXPECT_GT(Rows("notifications", 5), 0);
  worker->Signal(SIGKILL);
  EXPECT_EQ(worker->Wait(10s), 128 + SIGKILL);
  // The dead worker's session waits on until the lock is let go; its
  // transaction never gets its COMMIT, and ends when the session notices
  // the client is gone.
  blocker.ExecText("ROLLBACK", {});
  ASSERT_TRUE(WaitUntil([&] { return testing::BackendGone(*db_, *backend); }, 30s));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.user_erasures WHERE completed_at IS NULL"), 1);

  auto again = StartWorker("worker-2.log");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db_->Count(
                   "SELECT count(*) FROM chopar.user_erasures WHERE completed_at IS NOT "
                   "NULL") == 1;
      },
      60s))
      << "the erasure did not complete after the restart";
  EXPECT_EQ(Rows("notifications", 5), 0);
  EXPECT_EQ(Rows("deliveries", 5), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users WHERE id = 5"), 0);
  // The other user is untouched.
  EXPECT_EQ(Rows("notifications", 6), kNotifications);
  EXPECT_EQ(Rows("deliveries", 6), kNotifications);
  again->Signal(SIGTERM);
  EXPECT_EQ(again->Wait(30s), 0);
}

}  // namespace
}  // namespace chopar
