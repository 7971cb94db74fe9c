// Black-box: the built `chopar serve` fans a broadcast out to 50,000
// subscribers, is killed with SIGKILL in the middle of it, and after a
// restart every recipient has exactly one notification.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "net/http_client.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ChildProcess;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr char kApiKey[] = "broadcast-key";
constexpr int kRecipients = 50000;

class BroadcastKill9 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    db_ = std::make_unique<testing::TestDatabase>();
    dir_ = fs::temp_directory_path() / ("chopar-broadcast-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    port_ = testing::FreeLoopbackPort();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Small batches and a short lease: many batches to be killed in the
  // middle of, and a restart that takes the broadcast over quickly.
  std::unique_ptr<ChildProcess> StartServe(const std::string& log) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{CHOPAR_BINARY, "serve"},
        std::map<std::string, std::string>{
            {"CHOPAR_DATABASE_URL", db_->url()},
            {"CHOPAR_SERVER_API_KEY", kApiKey},
            {"CHOPAR_SERVER_LISTEN", "127.0.0.1:" + std::to_string(port_)},
            {"CHOPAR_SERVER_DATA_DIR", (dir_ / "var").string()},
            {"CHOPAR_BROADCAST_BATCH", "500"},
            {"CHOPAR_BROADCAST_LEASE_SECONDS", "2"}},
        dir_ / log, dir_);
  }

  net::HttpResponse Call(const std::string& method, const std::string& path,
                         const json& body = nullptr) {
    net::HttpRequest request;
    request.method = method;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    request.headers = {std::string("Authorization: Bearer ") + kApiKey,
                       "Content-Type: application/json"};
    if (!body.is_null()) request.body = body.dump();
    request.timeout = 10s;
    return client_.Perform(request);
  }
  bool Healthy() { return Call("GET", "/healthz").status == 200; }

  std::unique_ptr<testing::TestDatabase> db_;
  fs::path dir_;
  int port_ = 0;
  net::HttpClient client_;
};

TEST_F(BroadcastKill9, EveryRecipientHasExactlyOneNotificationAfterARestart) {
  auto serve = StartServe("serve-1.log");
  ASSERT_TRUE(WaitUntil([&] { return Healthy(); }, 60s)) << serve->Output();
  // The users by SQL (the test is about the fan-out), the topic and its
  // subscribers through the API, 10,000 a call.
  db_->Scalar(
      "INSERT INTO chopar.users (id, email) SELECT i, 'u' || i || '@example.uz' "
      "FROM generate_series(1, " +
      std::to_string(kRecipients) + ") i");
  ASSERT_EQ(Call("PUT", "/v1/topics/everyone", {{"name", "Everyone"}}).status, 200);
  for (int from = 1; from <= kRecipients; from += 10000) {
    json ids = json::array();
    for (int id = from; id < from + 10000; ++id) ids.push_back(id);
    const auto added = Call("PUT", "/v1/topics/everyone/subscribers", {{"user_ids", ids}});
    ASSERT_EQ(added.status, 200) << added.body;
    EXPECT_EQ(json::parse(added.body)["added"], 10000);
  }

  const json request = {
      {"topic", "everyone"},
      {"notification", {{"type", "maintenance"}, {"title", "Bugun kechqurun texnik ishlar"}}},
      {"dedup_key", "maintenance-2026-12-03"}};
  const auto created = Call("POST", "/v1/broadcasts", request);
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

  serve = StartServe("serve-2.log");
  ASSERT_TRUE(WaitUntil([&] { return Healthy(); }, 60s)) << serve->Output();
  // The same request again is the same broadcast.
  const auto repeated = Call("POST", "/v1/broadcasts", request);
  EXPECT_EQ(repeated.status, 200) << repeated.body;
  EXPECT_EQ(json::parse(repeated.body)["id"], id);

  json state;
  ASSERT_TRUE(WaitUntil(
      [&] {
        state = json::parse(Call("GET", path).body);
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
