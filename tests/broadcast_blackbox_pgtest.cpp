// Black-box: the built `chopar serve` fans a broadcast out to 50,000
// subscribers, is killed with SIGKILL in the middle of it, and after a
// restart every recipient has exactly one notification.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
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

}  // namespace
}  // namespace chopar
