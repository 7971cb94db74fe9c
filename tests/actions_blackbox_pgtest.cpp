// Black-box, a notification's event action: the built `chopar serve`,
// with a webhook target on 127.0.0.1 and no [events] emit, takes a
// notification with an event action, the subscriber presses it from the
// inbox twice, and the application's webhook receives one signed
// `notification.action` naming the press and the notification as read.

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/webhook_verifier.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "actions-key";
constexpr char kSecret[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

class ActionsBlackBox : public testing::DatabaseBlackBox {};

TEST_F(ActionsBlackBox, APressedEventActionReachesTheApplicationsWebhookOnce) {
  std::mutex mutex;
  std::vector<json> received;
  std::vector<std::string> problems;
  FakeHttpServer receiver([&](const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex);
    const std::string problem =
        testing::WebhookSignatureProblem(kSecret, request.headers, request.body);
    if (!problem.empty()) problems.push_back(problem);
    received.push_back(json::parse(request.body, nullptr, false));
    FakeHttpServer::Response ok;
    ok.status = 204;
    return ok;
  });
  const int port = FreeLoopbackPort();
  auto serve = StartWithConfig(
      "serve", port,
      DatabaseEnv(kApiKey, {{"CHOPAR_SERVER_INBOX_SECRET", "inbox-secret-for-tests"}}),
      "[[relay.targets]]\nkind = \"webhook\"\nurl = \"" + receiver.url() + "/hooks\"\nsecret = \"" +
          kSecret + "\"\n",
      "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  ASSERT_EQ(api.Call("PUT", "/v1/users/5", {{"locale", "uz"}}).status, 200);
  const auto created =
      api.Call("POST", "/v1/notifications",
               {{"user_id", 5},
                {"type", "invite.sent"},
                {"title", "Aziza sizni taklif qilmoqda"},
                {"actions", {{{"label", "Qabul qilish"}, {"event", "invite.accept"}}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::int64_t id = ParseJsonOrDiscarded(created.body)["id"];
  const std::string token =
      ParseJsonOrDiscarded(api.Call("GET", "/v1/users/5/token").body)["token"];
  const std::string press = "/v1/inbox/notifications/" + std::to_string(id) + "/actions/0";
  const auto first = api.CallUnauthenticated("POST", press, "", {"Authorization: Bearer " + token});
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(ParseJsonOrDiscarded(first.body)["recorded"], true) << first.body;
  const auto again = api.CallUnauthenticated("POST", press, "", {"Authorization: Bearer " + token});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(ParseJsonOrDiscarded(again.body)["recorded"], false) << again.body;

  ASSERT_TRUE(WaitUntil(
      [&] {
        std::lock_guard lock(mutex);
        return !received.empty();
      },
      30s))
      << serve->Output();
  // Another press's event would have been written with the first, in
  // the same relay's reach: nothing more arrives once the outbox is empty.
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db_->Count("SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL") == 0;
      },
      30s));
  std::lock_guard lock(mutex);
  EXPECT_EQ(problems, std::vector<std::string>{});
  ASSERT_EQ(received.size(), 1u);
  const json& event = received[0];
  EXPECT_EQ(event["type"], "notification.action");
  EXPECT_EQ(event["user_id"], 5);
  EXPECT_EQ(event["payload"]["notification_id"], id);
  EXPECT_EQ(event["payload"]["action"], 0);
  EXPECT_EQ(event["payload"]["event"], "invite.accept");
  EXPECT_EQ(event["payload"]["label"], "Qabul qilish");
  EXPECT_EQ(event["payload"]["pressed_at"], ParseJsonOrDiscarded(first.body)["pressed_at"]);
  EXPECT_TRUE(event["payload"]["notification"]["read_at"].is_string()) << event;
  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

}  // namespace
}  // namespace chopar
