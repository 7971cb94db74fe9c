// Black-box, real providers: the built `chopar serve` with its Telegram and
// Web Push providers (not the sink) talking to fake provider servers on
// 127.0.0.1 that answer as Telegram and a push service do. A user who blocked
// the bot stops being sent Telegram; a push subscription whose endpoint
// answered 410 is deleted while the user's other subscription keeps receiving.

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "blackbox_support.hpp"
#include "channels/webpush/crypto.hpp"
#include "channels/webpush/vapid.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/fake_telegram.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::DeliveriesSettled;
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "providers-key";
constexpr char kBotToken[] = "123456:AAH-fake-token";
constexpr std::int64_t kReachableChat = 900000001;
constexpr std::int64_t kBlockedChat = 900000002;
constexpr std::int64_t kReachableUser = 1;
constexpr std::int64_t kBlockingUser = 2;

// A browser's push subscription: its own key pair and auth secret, with which
// the test reads what the push service received.
struct Browser {
  std::string path;
  channels::webpush::P256KeyPair keys = channels::webpush::GenerateP256KeyPair();
  std::string auth = core::RandomBytes(channels::webpush::kPushAuthSecretSize);

  // The PushSubscription JSON a browser hands to the application.
  [[nodiscard]] json Subscription(const std::string& base) const {
    return {{"endpoint", base + path},
            {"keys",
             {{"p256dh", core::Base64UrlEncode(keys.public_key)},
              {"auth", core::Base64UrlEncode(auth)}}}};
  }
};

FakeHttpServer::Response JsonAnswer(int status, const json& body) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = body.dump();
  return response;
}

class ProvidersBlackBox : public testing::DatabaseBlackBox {
 protected:
  // `chopar serve` on the test database with the real Telegram and Web Push
  // providers pointed at the fakes.
  std::unique_ptr<ChildProcess> StartServe(int port) {
    return Start(
        "serve", port,
        DatabaseEnv(kApiKey, {{"CHOPAR_CHANNELS_TELEGRAM_PROVIDER", "telegram"},
                              {"CHOPAR_CHANNELS_TELEGRAM_BOT_TOKEN", kBotToken},
                              {"CHOPAR_CHANNELS_TELEGRAM_API_BASE", bot_.url()},
                              {"CHOPAR_CHANNELS_TELEGRAM_UPDATES", "off"},
                              {"CHOPAR_CHANNELS_PUSH_PROVIDER", "webpush"},
                              {"CHOPAR_CHANNELS_PUSH_VAPID_PUBLIC_KEY", vapid_.public_key},
                              {"CHOPAR_CHANNELS_PUSH_VAPID_PRIVATE_KEY", vapid_.private_key},
                              {"CHOPAR_CHANNELS_PUSH_ALLOW_HTTP_ENDPOINTS", "true"}}),
        "serve.log");
  }

  // The Bot API as Telegram answers it: sendMessage to the chat of a user
  // who blocked the bot is refused with 403, any other chat gets a message.
  FakeHttpServer::Response BotApi(const FakeHttpServer::Request& request) {
    if (request.method != "POST" ||
        request.target != std::string("/bot") + kBotToken + "/sendMessage") {
      return testing::BotError(404, "Not Found");
    }
    const json body = ParseJsonOrDiscarded(request.body);
    if (!body.is_object()) {
      return testing::BotError(400, "Bad Request");
    }
    const std::int64_t chat = body.value("chat_id", std::int64_t{0});
    if (chat == kBlockedChat) {
      return testing::BotError(403, "Forbidden: bot was blocked by the user");
    }
    return JsonAnswer(200, {{"ok", true},
                            {"result",
                             {{"message_id", ++last_message_id_},
                              {"chat", {{"id", chat}, {"type", "private"}}},
                              {"date", 1796303100},
                              {"text", body.value("text", "")}}}});
  }

  // A push service: the endpoint of `gone_` no longer exists, `kept_`'s
  // accepts the message.
  FakeHttpServer::Response PushService(const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    response.content_type = "text/plain";
    if (request.target == gone_.path) {
      response.status = 410;
      response.body = "push subscription has unsubscribed or expired";
    } else if (request.target == kept_.path) {
      response.status = 201;
      response.headers["Location"] = push_.url() + "/m/" + std::to_string(++last_push_id_);
    } else {
      response.status = 404;
    }
    return response;
  }

  // sendMessage requests the fake Bot API received for `chat`.
  std::vector<json> SentTo(std::int64_t chat) const {
    std::vector<json> out;
    for (const auto& request : bot_.requests()) {
      const json body = ParseJsonOrDiscarded(request.body);
      if (body.is_object() && body.value("chat_id", std::int64_t{0}) == chat) out.push_back(body);
    }
    return out;
  }

  // Requests the fake push service received for `browser`'s endpoint.
  std::vector<FakeHttpServer::Request> PushedTo(const Browser& browser) const {
    std::vector<FakeHttpServer::Request> out;
    for (const auto& request : push_.requests()) {
      if (request.target == browser.path) out.push_back(request);
    }
    return out;
  }

  const channels::webpush::VapidKeys vapid_ = channels::webpush::GenerateVapidKeys();
  const Browser gone_{"/push/gone"};
  const Browser kept_{"/push/kept"};
  std::atomic<int> last_message_id_{0};
  std::atomic<int> last_push_id_{0};
  FakeHttpServer bot_{[this](const FakeHttpServer::Request& r) { return BotApi(r); }};
  FakeHttpServer push_{[this](const FakeHttpServer::Request& r) { return PushService(r); }};
};

TEST_F(ProvidersBlackBox, BlockedBotStopsTelegramAndGonePushEndpointIsDeleted) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port);
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_NE(serve->Output().find("telegram=telegram push=webpush"), std::string::npos)
      << serve->Output();

  for (const auto& [user, chat] :
       {std::pair{kReachableUser, kReachableChat}, std::pair{kBlockingUser, kBlockedChat}}) {
    const std::string path = "/v1/users/" + std::to_string(user);
    ASSERT_EQ(api.Call("PUT", path, {{"locale", "uz"}}).status, 200);
    const auto connected = api.Call("PUT", path + "/telegram", {{"chat_id", chat}});
    ASSERT_EQ(connected.status, 200) << connected.body;
  }
  const std::string blocking = "/v1/users/" + std::to_string(kBlockingUser);
  std::int64_t kept_id = 0;
  for (const Browser* browser : {&gone_, &kept_}) {
    const auto added =
        api.Call("POST", blocking + "/push-subscriptions", browser->Subscription(push_.url()));
    ASSERT_EQ(added.status, 201) << added.body;
    if (browser == &kept_) kept_id = ParseJsonOrDiscarded(added.body)["id"].get<std::int64_t>();
  }

  auto notify = [&](std::int64_t user, const std::string& title) {
    const auto created = api.Call("POST", "/v1/notifications",
                                  {{"user_id", user},
                                   {"type", "task.due"},
                                   {"title", title},
                                   {"link", "/tasks/1"},
                                   {"channels", {"telegram", "push"}}});
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  };
  auto settled = [&](json created) {
    json notification;
    const bool done = WaitUntil(
        [&] {
          notification = ParseJsonOrDiscarded(
              api.Call("GET", "/v1/notifications/" + created["id"].dump()).body);
          return DeliveriesSettled(notification);
        },
        30s);
    EXPECT_TRUE(done) << notification.dump() << "\n" << serve->Output();
    return notification;
  };

  json to_reachable = notify(kReachableUser, "Muddat yaqin");
  json to_blocking = notify(kBlockingUser, "Muddat yaqin");
  EXPECT_EQ(to_reachable["channels"], json({"telegram"})) << "user 1 has no push subscription";
  EXPECT_EQ(to_blocking["channels"], json({"telegram", "push"}));
  json reachable = settled(to_reachable);
  json first = settled(to_blocking);

  // Telegram: the reachable chat got its message; the blocked chat's 403
  // failed the delivery as address-gone and deactivated the connection.
  const auto to_reachable_chat = SentTo(kReachableChat);
  ASSERT_EQ(to_reachable_chat.size(), 1u);
  EXPECT_NE(to_reachable_chat[0].value("text", "").find("Muddat yaqin"), std::string::npos);
  EXPECT_EQ(to_reachable_chat[0].value("parse_mode", ""), "HTML");
  EXPECT_EQ(DeliveryOn(reachable, "telegram")["status"], "sent") << reachable.dump();
  json reachable_deliveries = ParseJsonOrDiscarded(
      api.Call("GET", "/v1/deliveries?channel=telegram&user_id=" + std::to_string(kReachableUser))
          .body)["items"];
  ASSERT_EQ(reachable_deliveries.size(), 1u);
  EXPECT_EQ(reachable_deliveries[0]["provider_message_id"], "1")
      << "the message_id Telegram returned";

  EXPECT_EQ(SentTo(kBlockedChat).size(), 1u);
  json blocked = DeliveryOn(first, "telegram");
  EXPECT_EQ(blocked["status"], "failed") << first.dump();
  EXPECT_NE(blocked["last_error"].dump().find("403: Forbidden: bot was blocked by the user"),
            std::string::npos)
      << blocked.dump();
  json user = ParseJsonOrDiscarded(api.Call("GET", blocking).body);
  EXPECT_EQ(user["telegram"], json({{"chat_id", kBlockedChat}, {"active", false}})) << user.dump();
  EXPECT_EQ(user["channels"]["telegram"], false);
  EXPECT_EQ(user["channels"]["push"], true);
  auto connection_active = [&](std::int64_t user_id) {
    return db_->Scalar("SELECT active::text FROM chopar.telegram_connections WHERE user_id = " +
                       std::to_string(user_id));
  };
  EXPECT_EQ(connection_active(kBlockingUser), "false");
  EXPECT_EQ(connection_active(kReachableUser), "true");

  // Push: both endpoints were tried; the 410 one is deleted, the delivery is
  // sent through the other.
  ASSERT_EQ(PushedTo(gone_).size(), 1u);
  const auto kept_requests = PushedTo(kept_);
  ASSERT_EQ(kept_requests.size(), 1u);
  json pushed = DeliveryOn(first, "push");
  EXPECT_EQ(pushed["status"], "sent") << first.dump();
  EXPECT_EQ(db_->Scalar("SELECT string_agg(id::text, ',') FROM chopar.push_subscriptions"),
            std::to_string(kept_id));
  json push_deliveries = ParseJsonOrDiscarded(
      api.Call("GET", "/v1/deliveries?channel=push&user_id=" + std::to_string(kBlockingUser))
          .body)["items"];
  ASSERT_EQ(push_deliveries.size(), 1u);
  EXPECT_EQ(push_deliveries[0]["provider_message_id"], push_.url() + "/m/1")
      << "the push service's Location";

  // The request itself is RFC 8030/8291/8292: encrypted for the browser's
  // key, signed with our VAPID key.
  const FakeHttpServer::Request& request = kept_requests[0];
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.headers.count("content-encoding") ? request.headers.at("content-encoding") : "",
            "aes128gcm");
  ASSERT_TRUE(request.headers.count("ttl"));
  EXPECT_GT(std::stoi(request.headers.at("ttl")), 0);
  ASSERT_TRUE(request.headers.count("authorization"));
  const std::string& authorization = request.headers.at("authorization");
  EXPECT_TRUE(authorization.starts_with("vapid t=")) << authorization;
  EXPECT_TRUE(authorization.ends_with(", k=" + vapid_.public_key)) << authorization;
  const auto plaintext =
      channels::webpush::DecryptPushPayload(request.body, kept_.keys, kept_.auth);
  ASSERT_TRUE(plaintext.has_value()) << "the body does not decrypt with the subscription's keys";
  EXPECT_NE(plaintext->find("Muddat yaqin"), std::string::npos) << *plaintext;

  // The next notification does not choose Telegram, and only the remaining
  // subscription is pushed to.
  json to_blocking_again = notify(kBlockingUser, "Ertaga");
  EXPECT_EQ(to_blocking_again["channels"], json({"push"}));
  json second = settled(to_blocking_again);
  ASSERT_EQ(second["deliveries"].size(), 1u) << second.dump();
  EXPECT_EQ(DeliveryOn(second, "push")["status"], "sent") << second.dump();
  EXPECT_EQ(PushedTo(kept_).size(), 2u);
  EXPECT_EQ(PushedTo(gone_).size(), 1u) << "the deleted subscription is not a target any more";
  EXPECT_EQ(SentTo(kBlockedChat).size(), 1u);

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

}  // namespace
}  // namespace chopar
