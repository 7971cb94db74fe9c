// The cancel walk of a broadcast (docs/api.md "Topics and broadcasts",
// queries/stop_deliveries_batch.sql) interrupted in its middle: the
// `chopar serve` walking it is killed with SIGKILL, or PostgreSQL crashes
// (`pg_ctl restart -m immediate`). Afterwards the walk completes from its
// last committed batch (the broadcast's `cancel_cursor`): every queued
// delivery of the broadcast ends `canceled`, none of its deliveries is sent
// after the cancel answered, the broadcast stays `canceled`, and the
// deliveries of ordinary notifications are untouched.
//
// The broadcast is fanned out in this process to 20,000 of its 30,000
// recipients, its deliveries paced so that only the first batch's are due
// (the rest would fall due a day later and stay queued); this fan-out keeps
// the broadcast's lease, as another process fanning it out would, until the
// cancel ends it. The server sends the due batch, then
// `POST /v1/broadcasts/{id}/cancel` starts the walk (its first batch in the
// cancel itself), which goes down from
// recipient 20,000 in batches of 1,000. The window is made wide
// deterministically: the test holds, in a transaction it keeps open, the
// row of a queued delivery of recipient 15,500, so the fifth batch waits for
// it with four committed before it; the fault strikes once the test sees
// the walk waiting there.

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../blackbox_support.hpp"
#include "broadcast/fan_out.hpp"
#include "core/clock.hpp"
#include "core/json.hpp"
#include "core/metrics.hpp"
#include "db/connection.hpp"
#include "db/pool.hpp"
#include "fault_support.hpp"
#include "testing/test_server.hpp"

namespace chopar {
namespace {

using namespace std::chrono_literals;
using testing::TestServer;
using testing::WaitUntil;

constexpr const char* kApiKey = "broadcast-cancel-faults-key";
constexpr int kRecipients = 30000;
constexpr int kBatch = 1000;
constexpr int kFannedOut = 20 * kBatch;  // recipients 1..20,000 have their notification
constexpr int kHeldRecipient = 15500;    // in the walk's fifth batch (15,001..16,000)

class BroadcastCancelFaults : public testing::ServeBlackBox {
 protected:
  BroadcastCancelFaults() : ServeBlackBox(kApiKey) {}

  void SetUp() override {
    ServeBlackBox::SetUp();
    if (IsSkipped()) return;
    if (!TestServer::Available()) {
      GTEST_SKIP() << "needs scripts/with-test-pg (CHOPAR_TEST_PG_DATA and friends)";
    }
    TestServer::KeepCommitsThroughCrashes(db_->url());
    id_ = testing::MakeTopicBroadcast(*db_, kRecipients);
    dedup_key_ = "'broadcast:" + id_ + "'";
    // Ordinary notifications with a queued delivery each, of recipients the
    // walk passes (one of them the held one's) and of one it never reaches.
    for (int user : {kHeldRecipient, kFannedOut - 10, kRecipients}) {
      ordinary_.push_back(db_->Scalar(
          "WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) VALUES (" +
          std::to_string(user) +
          ", 'task.due', 'Pay') RETURNING id, user_id) "
          "INSERT INTO chopar.deliveries (notification_id, user_id, channel, next_attempt_at) "
          "SELECT id, user_id, 'email', now() + interval '1 day' FROM n RETURNING id"));
    }
    FanOutPart();
  }

  // The broadcast's first kFannedOut recipients, in batches of kBatch: the
  // first batch's deliveries due now, every later batch's a day or more
  // later. The lease stays with this fan-out (an hour): the server does not
  // fan out further before the cancel.
  void FanOutPart() {
    db::Pool pool(db_->url(), 2);
    core::SystemClock clock;
    core::MetricsRegistry metrics;
    broadcast::FanOut fan_out(pool, clock, metrics,
                              broadcast::FanOutSettings{.batch = kBatch,
                                                        .lease = std::chrono::hours(1),
                                                        .deliveries_per_second = 0.01,
                                                        .max_sleep = 10s});
    for (int batch = 0; batch < kFannedOut / kBatch; ++batch) {
      const auto done = fan_out.RunBatch();
      ASSERT_TRUE(done.has_value());
      ASSERT_EQ(done->recipients, kBatch);
    }
    ASSERT_EQ(Deliveries("true"), kFannedOut);
    ASSERT_EQ(Deliveries("d.next_attempt_at <= now()"), kBatch);
  }

  std::unique_ptr<testing::ChildProcess> StartServer(const std::string& log) {
    auto server = StartServe(log, {{"CHOPAR_BROADCAST_BATCH", std::to_string(kBatch)},
                                   {"CHOPAR_BROADCAST_LEASE_SECONDS", "1"}});
    EXPECT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << server->Output();
    return server;
  }

  // The broadcast's deliveries where `condition` (SQL on `d`).
  std::int64_t Deliveries(const std::string& condition) {
    return db_->Count(
        "SELECT count(*) FROM chopar.deliveries d JOIN chopar.notifications n "
        "ON n.id = d.notification_id WHERE n.dedup_key = " +
        dedup_key_ + " AND " + condition);
  }
  // What the sink "sent" for the broadcast.
  std::int64_t SinkMessages() {
    return db_->Count(
        "SELECT count(*) FROM chopar.sink_messages m JOIN chopar.deliveries d "
        "ON d.id = m.delivery_id JOIN chopar.notifications n ON n.id = d.notification_id "
        "WHERE n.dedup_key = " +
        dedup_key_);
  }
  std::string CancelCursor() {
    return db_->Scalar("SELECT coalesce(cancel_cursor::text, 'none') FROM chopar.broadcasts");
  }

  // Holds, in a transaction of `conn` left open, the row of the held
  // recipient's queued delivery of the broadcast.
  void HoldTheFifthBatch(db::Connection& conn) {
    conn.ExecText("BEGIN", {});
    const auto held = conn.ExecText(
        "SELECT d.id FROM chopar.deliveries d JOIN chopar.notifications n "
        "ON n.id = d.notification_id WHERE n.dedup_key = " +
            dedup_key_ + " AND n.user_id = " + std::to_string(kHeldRecipient) +
            " AND d.status = 'queued' FOR UPDATE OF d",
        {});
    ASSERT_EQ(held.Rows(), 1);
  }

  // The backend of the walk once its batch waits for a row lock; nullopt
  // until then.
  std::optional<std::int64_t> WalkWaiting() {
    return testing::BackendWaitingIn(*db_, "cancel_cursor");
  }

  // Sends the due deliveries, cancels through the API, and waits until the
  // walk has committed four batches and waits in the fifth, held by
  // `holder`. Returns the walk's backend and how many of the broadcast's
  // deliveries were sent when the cancel answered.
  std::pair<std::int64_t, std::int64_t> CancelAndStallTheWalk(db::Connection& holder) {
    EXPECT_TRUE(WaitUntil([&] { return Deliveries("d.status = 'sent'") == kBatch; }, 120s))
        << "the due batch was not sent";
    HoldTheFifthBatch(holder);
    const auto canceled = api_->Call("POST", "/v1/broadcasts/" + id_ + "/cancel");
    EXPECT_EQ(canceled.status, 200) << canceled.body;
    EXPECT_EQ(core::ParseJsonOrDiscarded(canceled.body).value("status", ""), "canceled");
    const std::int64_t sent = Deliveries("d.status = 'sent'");

    std::optional<std::int64_t> walk;
    EXPECT_TRUE(WaitUntil([&] { return (walk = WalkWaiting()).has_value(); }, 60s))
        << "the walk never reached the held row";
    EXPECT_EQ(CancelCursor(), std::to_string(kFannedOut - 4 * kBatch)) << "four batches committed";
    EXPECT_EQ(Deliveries("d.status = 'canceled'"), 4 * kBatch);
    EXPECT_GT(Deliveries("d.status = 'queued'"), 0) << "the walk was done: nothing tested";
    return {walk.value_or(0), sent};
  }

  // The walk completed: every delivery of the broadcast is sent (those sent
  // before the cancel answered) or canceled, and the rest is untouched.
  void ExpectTheWalkCompleted(std::int64_t sent_when_canceled) {
    EXPECT_TRUE(WaitUntil(
        [&] { return Deliveries("d.status = 'queued'") == 0 && CancelCursor() == "none"; }, 120s))
        << "queued deliveries left: " << Deliveries("d.status = 'queued'") << ", cancel_cursor "
        << CancelCursor();
    EXPECT_EQ(Deliveries("d.status = 'canceled' AND d.last_error = 'canceled'"),
              kFannedOut - sent_when_canceled);
    EXPECT_EQ(Deliveries("d.status = 'sent'"), sent_when_canceled)
        << "a delivery was sent after the cancel answered";
    EXPECT_EQ(SinkMessages(), sent_when_canceled);
    EXPECT_EQ(Deliveries("d.status NOT IN ('sent', 'canceled')"), 0);
    EXPECT_EQ(db_->Scalar("SELECT status || ' ' || recipients FROM chopar.broadcasts"),
              "canceled " + std::to_string(kFannedOut))
        << "no recipient was fanned out after the cancel";
    EXPECT_EQ(
        db_->Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key = " + dedup_key_),
        kFannedOut);
    for (const std::string& delivery : ordinary_) {
      EXPECT_EQ(db_->Scalar("SELECT status || ' ' || coalesce(last_error, '-') FROM "
                            "chopar.deliveries WHERE id = " +
                            delivery),
                "queued -")
          << "an ordinary delivery was touched";
    }
  }

  std::string id_;
  std::string dedup_key_;              // as an SQL literal
  std::vector<std::string> ordinary_;  // ids of the ordinary deliveries
};

TEST_F(BroadcastCancelFaults, WalkCompletesAfterTheServerWalkingItIsKilled) {
  auto server = StartServer("serve-killed.log");
  auto holder = db::Connection::Open(db_->url());
  const auto [walk, sent] = CancelAndStallTheWalk(holder);
  ASSERT_NE(walk, 0);

  server->Signal(SIGKILL);
  EXPECT_EQ(server->Wait(10s), 128 + SIGKILL);
  // The dead server's batch goes on once the row is let go, then finds its
  // client gone and is rolled back: nothing it did is committed.
  holder.ExecText("ROLLBACK", {});
  ASSERT_TRUE(WaitUntil([&] { return testing::BackendGone(*db_, walk); }, 60s));
  EXPECT_EQ(CancelCursor(), std::to_string(kFannedOut - 4 * kBatch));
  EXPECT_EQ(Deliveries("d.status = 'canceled'"), 4 * kBatch);

  // Another server takes the walk over once the dead one's lease runs out.
  auto successor = StartServer("serve-successor.log");
  ExpectTheWalkCompleted(sent);
  EXPECT_EQ(core::ParseJsonOrDiscarded(api_->Call("GET", "/v1/broadcasts/" + id_).body)
                .value("status", ""),
            "canceled");
  successor->Signal(SIGTERM);
  EXPECT_EQ(successor->Wait(30s), 0) << successor->Output();
}

TEST_F(BroadcastCancelFaults, WalkCompletesAfterADatabaseCrashInItsMiddle) {
  auto server = StartServer("serve.log");
  auto holder = db::Connection::Open(db_->url());
  const auto [walk, sent] = CancelAndStallTheWalk(holder);
  ASSERT_NE(walk, 0);

  // Every session is cut, the held row's and the walk's: the batch in
  // progress is rolled back, and the same server reconnects and goes on.
  TestServer::CrashAndRestart();
  ExpectTheWalkCompleted(sent);
  EXPECT_TRUE(server->Running()) << server->Output();
  server->Signal(SIGTERM);
  EXPECT_EQ(server->Wait(30s), 0) << server->Output();
}

}  // namespace
}  // namespace chopar
