// Black-box: the built `chopar serve` fans a broadcast out to 50,000
// subscribers, is killed with SIGKILL in the middle of it, and after a
// restart every recipient has exactly one notification. And a cancel
// stops what a broadcast that is already done has not sent yet: its delayed
// recipients, its paced deliveries (email to a fake SMTP server).

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_smtp_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using nlohmann::json;
using testing::ChildProcess;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr char kApiKey[] = "broadcast-key";
constexpr int kRecipients = 50000;

// Small batches and a short lease: many batches to be killed in the middle
// of, and a restart that takes the broadcast over quickly.
const std::map<std::string, std::string> kSmallBatchesShortLease = {
    {"CHOPAR_BROADCAST_BATCH", "500"}, {"CHOPAR_BROADCAST_LEASE_SECONDS", "2"}};

class BroadcastKill9 : public testing::ServeBlackBox {
 protected:
  BroadcastKill9() : ServeBlackBox(kApiKey) {}
};

TEST_F(BroadcastKill9, EveryRecipientHasExactlyOneNotificationAfterARestart) {
  auto serve = StartServe("serve-1.log", kSmallBatchesShortLease);
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  // The users by SQL (the test is about the fan-out), the topic and its
  // subscribers through the API, 10,000 a call.
  db_->Scalar(
      "INSERT INTO chopar.users (id, email) SELECT i, 'u' || i || '@example.uz' "
      "FROM generate_series(1, " +
      std::to_string(kRecipients) + ") i");
  ASSERT_EQ(api_->Call("PUT", "/v1/topics/everyone", {{"name", "Everyone"}}).status, 200);
  for (int from = 1; from <= kRecipients; from += 10000) {
    json ids = json::array();
    for (int id = from; id < from + 10000; ++id) ids.push_back(id);
    const auto added = api_->Call("PUT", "/v1/topics/everyone/subscribers", {{"user_ids", ids}});
    ASSERT_EQ(added.status, 200) << added.body;
    EXPECT_EQ(json::parse(added.body)["added"], 10000);
  }

  const json request = {
      {"topic", "everyone"},
      {"notification", {{"type", "maintenance"}, {"title", "Bugun kechqurun texnik ishlar"}}},
      {"dedup_key", "maintenance-2026-12-03"}};
  const auto created = api_->Call("POST", "/v1/broadcasts", request);
  ASSERT_EQ(created.status, 202) << created.body;
  const std::int64_t id = json::parse(created.body)["id"].get<std::int64_t>();
  const std::string path = "/v1/broadcasts/" + std::to_string(id);

  // SIGKILL once a fifth of the recipients have theirs.
  ASSERT_TRUE(WaitUntil(
      [&] { return db_->Count("SELECT count(*) FROM chopar.notifications") >= kRecipients / 5; },
      120s))
      << serve->Output();
  serve->Signal(SIGKILL);
  serve->Wait(10s);
  const std::int64_t at_kill = db_->Count("SELECT count(*) FROM chopar.notifications");
  ASSERT_LT(at_kill, kRecipients) << "the fan-out ended before the kill; nothing was tested";
  EXPECT_EQ(db_->Scalar("SELECT status FROM chopar.broadcasts"), "running");

  serve = StartServe("serve-2.log", kSmallBatchesShortLease);
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  // The same request again is the same broadcast.
  const auto repeated = api_->Call("POST", "/v1/broadcasts", request);
  EXPECT_EQ(repeated.status, 200) << repeated.body;
  EXPECT_EQ(json::parse(repeated.body)["id"], id);

  json state;
  ASSERT_TRUE(WaitUntil(
      [&] {
        state = json::parse(api_->Call("GET", path).body);
        return state["status"] == "done";
      },
      180s))
      << state.dump() << serve->Output();
  EXPECT_EQ(state["recipients"], kRecipients) << state.dump();
  EXPECT_EQ(state["created"], kRecipients) << state.dump();
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), kRecipients);
  EXPECT_EQ(db_->Count("SELECT count(DISTINCT user_id) FROM chopar.notifications WHERE dedup_key = "
                       "'broadcast:" +
                       std::to_string(id) + "'"),
            kRecipients);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), kRecipients);  // email only
  std::cout << "killed with " << at_kill << " of " << kRecipients << " notifications created\n";

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

// A `chopar serve` sending email to a fake SMTP server, and users 1..3 with
// an address, subscribed to topic "team".
class BroadcastCancel : public testing::ServeBlackBox {
 protected:
  BroadcastCancel() : ServeBlackBox(kApiKey) {}

  void Start(std::map<std::string, std::string> env) {
    env.insert({{"CHOPAR_CHANNELS_EMAIL_PROVIDER", "smtp"},
                {"CHOPAR_CHANNELS_EMAIL_SMTP_URL", smtp_.url()},
                {"CHOPAR_CHANNELS_EMAIL_FROM", "chopar <noreply@chopar.example.uz>"}});
    serve_ = StartServe("serve.log", std::move(env));
    ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve_->Output();
    for (int user = 1; user <= 3; ++user) {
      const auto put = api_->Call("PUT", "/v1/users/" + std::to_string(user),
                                  {{"email", "u" + std::to_string(user) + "@example.uz"}});
      ASSERT_EQ(put.status, 200) << put.body;
    }
    ASSERT_EQ(api_->Call("PUT", "/v1/topics/team", {{"name", "Team"}}).status, 200);
    ASSERT_EQ(api_->Call("PUT", "/v1/topics/team/subscribers", {{"user_ids", {1, 2, 3}}}).status,
              200);
  }

  // Creates a broadcast to "team" and waits until its fan-out is done.
  std::string BroadcastDone(const json& notification) {
    const auto created =
        api_->Call("POST", "/v1/broadcasts", {{"topic", "team"}, {"notification", notification}});
    EXPECT_EQ(created.status, 202) << created.body;
    const std::string path =
        "/v1/broadcasts/" + std::to_string(json::parse(created.body)["id"].get<std::int64_t>());
    EXPECT_TRUE(WaitUntil(
        [&] { return json::parse(api_->Call("GET", path).body)["status"] == "done"; }, 60s))
        << serve_->Output();
    return path;
  }

  std::int64_t Deliveries(const std::string& condition) {
    return db_->Count("SELECT count(*) FROM chopar.deliveries WHERE " + condition);
  }

  testing::FakeSmtpServer smtp_;
  std::unique_ptr<ChildProcess> serve_;
};

// 3 users, delay_seconds 15, cancel once the fan-out is done: no email at
// all. The proof that nothing comes later: a notification asked for after
// the cancel, with the same delay, is released after the broadcast's would
// have been (delayed notifications are released in due order), and once it
// is sent nothing of the broadcast exists.
TEST_F(BroadcastCancel, CancelStopsTheDelayedRecipientsOfADoneBroadcast) {
  Start({});
  const std::string path = BroadcastDone(
      {{"type", "maintenance"}, {"title", "Tonight"}, {"channels", {"email"}}, {"delay_seconds", 15}});

  const auto canceled = api_->Call("POST", path + "/cancel");
  ASSERT_EQ(canceled.status, 200) << canceled.body;
  const json answer = json::parse(canceled.body);
  EXPECT_EQ(answer["status"], "canceled");
  EXPECT_EQ(answer["stopped"], (json{{"deliveries", 0}, {"delayed", 3}, {"digest_items", 0}}))
      << answer.dump();
  EXPECT_EQ(json::parse(api_->Call("POST", path + "/cancel").body), answer) << "idempotent";

  const auto later = api_->Call("POST", "/v1/notifications",
                                {{"user_id", 1},
                                 {"type", "maintenance"},
                                 {"title", "After the cancel"},
                                 {"channels", {"email"}},
                                 {"delay_seconds", 15}});
  ASSERT_EQ(later.status, 201) << later.body;
  ASSERT_TRUE(WaitUntil([&] { return Deliveries("status = 'sent'") == 1; }, 60s))
      << serve_->Output();
  EXPECT_EQ(Deliveries("true"), 1) << "a delivery of the canceled broadcast was created";
  EXPECT_EQ(smtp_.message_count(), 1u);
  serve_->Signal(SIGTERM);
  EXPECT_EQ(serve_->Wait(30s), 0) << serve_->Output();
}

// A broadcast paced one recipient a batch, 20 s apart: done at once, the
// first recipient's email sent, the other two queued for later. The cancel
// cancels those two; a canceled delivery is never claimed.
TEST_F(BroadcastCancel, CancelStopsThePacedQueuedDeliveriesOfADoneBroadcast) {
  Start({{"CHOPAR_BROADCAST_BATCH", "1"}, {"CHOPAR_BROADCAST_DELIVERIES_PER_SECOND", "0.05"}});
  const std::string path =
      BroadcastDone({{"type", "maintenance"}, {"title", "Tonight"}, {"channels", {"email"}}});
  ASSERT_TRUE(WaitUntil([&] { return smtp_.message_count() == 1; }, 60s)) << serve_->Output();
  ASSERT_EQ(Deliveries("status = 'queued'"), 2) << "the deliveries were not paced";

  const auto canceled = api_->Call("POST", path + "/cancel");
  ASSERT_EQ(canceled.status, 200) << canceled.body;
  const json answer = json::parse(canceled.body);
  EXPECT_EQ(answer["status"], "canceled");
  // One recipient a batch: the cancel's own transaction stops the first,
  // the fan-out loops walk the rest in the background.
  json stopped = answer;
  ASSERT_TRUE(WaitUntil(
      [&] {
        stopped = json::parse(api_->Call("GET", path).body);
        return stopped["stopping"] == false;
      },
      60s))
      << stopped.dump() << serve_->Output();
  EXPECT_EQ(stopped["stopped"], (json{{"deliveries", 2}, {"delayed", 0}, {"digest_items", 0}}))
      << stopped.dump();
  EXPECT_EQ(Deliveries("status = 'canceled' AND last_error = 'canceled'"), 2);
  EXPECT_EQ(Deliveries("status = 'sent'"), 1);
  serve_->Signal(SIGTERM);
  EXPECT_EQ(serve_->Wait(30s), 0) << serve_->Output();
  EXPECT_EQ(smtp_.message_count(), 1u);
}

}  // namespace
}  // namespace chopar
