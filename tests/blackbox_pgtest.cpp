// Black-box tests: the built `chopar` binary as a user runs it, over HTTP.

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

namespace fs = std::filesystem;
using testing::Api;
using testing::BlackBox;
using testing::FreeLoopbackPort;
using testing::ReadFirstLine;
using testing::WaitUntil;
using namespace std::chrono_literals;

TEST_F(BlackBox, EmbeddedDatabaseServesAndSurvivesKill9) {
  const int port = FreeLoopbackPort();
  auto first = Start("serve", port, {}, "first.log");
  ASSERT_TRUE(WaitUntil([&] { return fs::exists(dir_ / "var" / "api_key"); }, 120s)) << first->Output();
  Api api(port, ReadFirstLine(dir_ / "var" / "api_key"));
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << first->Output();
  EXPECT_NE(first->Output().find("API key:"), std::string::npos);
  EXPECT_NE(first->Output().find("embedded PostgreSQL in"), std::string::npos);

  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "aziz@example.uz"}}).status, 200);
  const auto created = api.Call("POST", "/v1/notifications", {{"user_id", 1}, {"type", "task.due"}, {"title", "Muddat yaqin"}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_TRUE(WaitUntil([&] {
    return nlohmann::json::parse(api.Call("GET", "/v1/notifications/1").body)["deliveries"][0]["status"] == "sent";
  }, 30s));

  // kill -9 leaves the postmaster running; the next start must reuse it.
  first->Signal(SIGKILL);
  first->Wait(10s);
  auto second = Start("serve", port, {}, "second.log");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << second->Output();
  const auto kept = nlohmann::json::parse(api.Call("GET", "/v1/notifications/1").body);
  EXPECT_EQ(kept["title"], "Muddat yaqin");

  // A second process on the same data_dir shares the running cluster.
  auto worker = Start("worker", FreeLoopbackPort(), {}, "worker.log");
  EXPECT_TRUE(WaitUntil([&] { return worker->Output().find("channels:") != std::string::npos; }, 60s)) << worker->Output();
  EXPECT_TRUE(worker->Running()) << worker->Output();

  worker->Signal(SIGTERM);
  EXPECT_EQ(worker->Wait(30s), 0) << worker->Output();
  second->Signal(SIGTERM);
  EXPECT_EQ(second->Wait(30s), 0) << second->Output();
}

TEST_F(BlackBox, ConfiguredDatabaseDeliversABatchAndDrainsOnSigterm) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db;
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, {{"CHOPAR_DATABASE_URL", db.url()}, {"CHOPAR_SERVER_API_KEY", "test-key"}}, "serve.log");
  Api api(port, "test-key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  for (int user = 1; user <= 10; ++user) {
    ASSERT_EQ(api.Call("PUT", "/v1/users/" + std::to_string(user), {{"email", "u" + std::to_string(user) + "@example.uz"}}).status, 200);
  }
  nlohmann::json batch = nlohmann::json::array();
  for (int i = 0; i < 200; ++i) batch.push_back({{"user_id", 1 + i % 10}, {"type", "bench.ping"}, {"title", "t"}});
  const auto response = api.Call("POST", "/v1/notifications/batch", {{"notifications", batch}});
  ASSERT_EQ(response.status, 200) << response.body;
  // 20 per user and the default email limit is 20 an hour: every one is sent.
  EXPECT_TRUE(WaitUntil([&] { return db.Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'") == 200; }, 30s));
  EXPECT_EQ(db.Count("SELECT count(DISTINCT delivery_id) FROM chopar.sink_messages"), 200);
  EXPECT_EQ(api.Call("GET", "/v1/users/1/notifications").status, 200);

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

TEST_F(BlackBox, WrongApiKeyIsRefused) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db;
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, {{"CHOPAR_DATABASE_URL", db.url()}, {"CHOPAR_SERVER_API_KEY", "right"}}, "serve.log");
  Api wrong(port, "wrong");
  ASSERT_TRUE(WaitUntil([&] { return wrong.Healthy(); }, 60s)) << serve->Output();
  const auto refused = wrong.Call("PUT", "/v1/users/1", {{"email", "a@example.uz"}});
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(nlohmann::json::parse(refused.body)["error"]["code"], "unauthorized");
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.users"), 0);
}

}  // namespace
}  // namespace chopar
