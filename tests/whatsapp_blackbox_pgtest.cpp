// Black-box, WhatsApp: the built `chopar serve` with its Cloud API provider
// (not the sink) sending to a fake Graph API on 127.0.0.1 that answers as
// Meta does, and Meta's signed status webhooks posted back to it. A template
// message reaches the user's number and its wamid is kept; delivered and
// read statuses move the delivery's provider_status forward only; a number
// not on WhatsApp is removed and not chosen again; a throughput limit is
// retried after its delay; two processes racing send each message once,
// even to an API slower than the lease; `kill -9` mid-send never sends
// again; the channel is off until the user's preferences turn it on, and
// quiet hours and the hourly limit hold; the sink shows what the user would
// have seen.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
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
using testing::QuietHoursAroundNow;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "whatsapp-key";
constexpr char kPhoneNumberId[] = "106540352242922";
constexpr char kAccessToken[] = "EAAG-system-user-token";
constexpr char kAppSecret[] = "meta-app-secret";
constexpr char kVerifyToken[] = "chopar-verify";

FakeHttpServer::Response GraphError(int status, int code, const std::string& message) {
  FakeHttpServer::Response r;
  r.status = status;
  r.body =
      json({{"error", {{"message", message}, {"type", "OAuthException"}, {"code", code}}}}).dump();
  return r;
}

std::string Number(int user) { return "+99890000" + std::to_string(1000 + user); }

class WhatsAppBlackBox : public testing::DatabaseBlackBox {
 protected:
  std::unique_ptr<ChildProcess> StartServe(int port, const std::string& log,
                                           std::map<std::string, std::string> more = {}) {
    more.emplace("CHOPAR_CHANNELS_WHATSAPP_PROVIDER", "cloud_api");
    more.emplace("CHOPAR_CHANNELS_WHATSAPP_API_URL", graph_.url() + "/v21.0");
    more.emplace("CHOPAR_CHANNELS_WHATSAPP_PHONE_NUMBER_ID", kPhoneNumberId);
    more.emplace("CHOPAR_CHANNELS_WHATSAPP_ACCESS_TOKEN", kAccessToken);
    more.emplace("CHOPAR_CHANNELS_WHATSAPP_APP_SECRET", kAppSecret);
    more.emplace("CHOPAR_CHANNELS_WHATSAPP_VERIFY_TOKEN", kVerifyToken);
    return Start("serve", port, DatabaseEnv(kApiKey, std::move(more)), log);
  }

  // The Graph API: POST /v21.0/{phone_number_id}/messages with the bearer
  // token and a template message, answered by the number it is to.
  FakeHttpServer::Response Graph(const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex_);
    const json body = ParseJsonOrDiscarded(request.body);
    const auto auth = request.headers.find("authorization");
    if (auth == request.headers.end() || auth->second != std::string("Bearer ") + kAccessToken) {
      return GraphError(401, 190, "Invalid OAuth access token.");
    }
    if (request.method != "POST" ||
        request.target != std::string("/v21.0/") + kPhoneNumberId + "/messages" ||
        !body.is_object() || body.value("messaging_product", "") != "whatsapp" ||
        body.value("type", "") != "template" || !body["to"].is_string()) {
      return GraphError(400, 100, "Invalid parameter");
    }
    const std::string to = "+" + body["to"].get<std::string>();
    if (not_on_whatsapp_.contains(to)) return GraphError(400, 131026, "Message undeliverable");
    if (throttled_.erase(to) > 0) {
      FakeHttpServer::Response r = GraphError(400, 130429, "Rate limit hit");
      r.headers["Retry-After"] = "1";
      return r;
    }
    FakeHttpServer::Response ok;
    ok.body = json({{"messaging_product", "whatsapp"},
                    {"contacts", {{{"input", body["to"]}, {"wa_id", body["to"]}}}},
                    {"messages", {{{"id", "wamid.HBgM" + std::to_string(++accepted_)}}}}})
                  .dump();
    ok.delay = delay_;
    return ok;
  }

  void SetDelay(std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    delay_ = delay;
  }

  // Makes user `user` reachable on WhatsApp: their number, and the channel
  // turned on (it is off unless the user opts in).
  void OptIn(Api& api, int user, json more = json::object()) {
    more["addresses"] = {{"whatsapp", Number(user)}};
    if (!more.contains("preferences")) more["preferences"] = json::object();
    more["preferences"]["whatsapp"] = true;
    const auto put = api.Call("PUT", "/v1/users/" + std::to_string(user), more);
    ASSERT_EQ(put.status, 200) << put.body;
  }

  json Notify(Api& api, int user, const std::string& title, json more = json::object()) {
    more["user_id"] = user;
    more["type"] = more.value("type", "task.due");
    more["title"] = title;
    more["body"] = more.value("body", "Hisobot ertaga");
    const auto created = api.Call("POST", "/v1/notifications", more);
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  }

  // A status webhook as Meta posts it, signed with `secret`.
  net::HttpResponse PostStatuses(Api& api, const json& statuses,
                                 const std::string& secret = kAppSecret) {
    const json hook = {{"object", "whatsapp_business_account"},
                       {"entry",
                        {{{"id", "102290129340398"},
                          {"changes",
                           {{{"field", "messages"},
                             {"value",
                              {{"messaging_product", "whatsapp"},
                               {"metadata", {{"phone_number_id", kPhoneNumberId}}},
                               {"statuses", statuses}}}}}}}}}};
    const std::string body = hook.dump();
    return api.CallUnauthenticated(
        "POST", "/v1/whatsapp/webhook", body,
        {"Content-Type: application/json",
         "X-Hub-Signature-256: sha256=" + core::HexEncode(core::HmacSha256(secret, body))});
  }

  std::map<std::int64_t, int> SendsByDelivery() const {
    std::map<std::int64_t, int> sends;
    for (const auto& request : graph_.requests()) {
      if (request.delivery_id) ++sends[*request.delivery_id];
    }
    return sends;
  }

  std::mutex mutex_;
  std::set<std::string> not_on_whatsapp_;
  std::set<std::string> throttled_;
  std::chrono::milliseconds delay_{0};
  std::int64_t accepted_ = 0;
  FakeHttpServer graph_{[this](const FakeHttpServer::Request& r) { return Graph(r); }};
};

TEST_F(WhatsAppBlackBox, SendsATemplateTracksItsStatusesAndForgetsANumberNotOnWhatsApp) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_NE(serve->Output().find("whatsapp=whatsapp"), std::string::npos) << serve->Output();
  {
    std::lock_guard lock(mutex_);
    not_on_whatsapp_.insert(Number(2));
    throttled_.insert(Number(3));
  }
  OptIn(api, 1, {{"locale", "uz"}});
  OptIn(api, 2);
  OptIn(api, 3);

  json to_live = Notify(api, 1, "Muddat yaqin", {{"channels", {"whatsapp"}}});
  json to_gone = Notify(api, 2, "Muddat yaqin", {{"channels", {"whatsapp"}}});
  json to_busy = Notify(api, 3, "Muddat yaqin", {{"channels", {"whatsapp"}}});
  EXPECT_EQ(to_live["channels"], json({"whatsapp"}));

  json live = SettledNotification(api, to_live);
  ASSERT_EQ(DeliveryOn(live, "whatsapp")["status"], "sent") << live.dump();
  const auto Tracked = [&] {
    const json items = ParseJsonOrDiscarded(
        api.Call("GET", "/v1/deliveries?user_id=1&channel=whatsapp").body)["items"];
    return items.size() == 1 ? items[0] : json();
  };
  const json sent = Tracked();
  ASSERT_TRUE(sent["provider_message_id"].is_string()) << sent.dump();
  const std::string wamid = sent["provider_message_id"];
  EXPECT_TRUE(wamid.starts_with("wamid.")) << sent.dump();
  bool found = false;
  for (const auto& request : graph_.requests()) {
    const json body = ParseJsonOrDiscarded(request.body);
    if (body.value("to", "") != Number(1).substr(1)) continue;
    found = true;
    EXPECT_EQ(body["template"]["name"], "chopar_notification");
    EXPECT_EQ(body["template"]["language"]["code"], "uz");
    EXPECT_EQ(body["template"]["components"][0]["parameters"][0]["text"], "Muddat yaqin");
    EXPECT_EQ(body["template"]["components"][0]["parameters"][1]["text"], "Hisobot ertaga");
  }
  EXPECT_TRUE(found);

  // Meta's statuses: read before delivered (out of order) leaves read; a
  // wrong signature changes nothing; an unknown wamid is no error.
  EXPECT_EQ(PostStatuses(api, {{{"id", wamid}, {"status", "delivered"}}}, "not-the-secret").status,
            401);
  const auto read = PostStatuses(api, {{{"id", wamid}, {"status", "read"}},
                                       {{"id", "wamid.unknown"}, {"status", "delivered"}}});
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(ParseJsonOrDiscarded(read.body),
            json({{"statuses", 2}, {"matched", 1}, {"recorded", 1}}));
  const auto late = PostStatuses(api, {{{"id", wamid}, {"status", "delivered"}}});
  EXPECT_EQ(ParseJsonOrDiscarded(late.body)["recorded"], 0) << late.body;
  const json tracked = Tracked();
  EXPECT_EQ(tracked["provider_status"], "read") << tracked.dump();
  EXPECT_EQ(tracked["status"], "sent");

  // Meta's subscription handshake.
  const auto handshake = api.CallUnauthenticated(
      "GET",
      std::string("/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=") + kVerifyToken +
          "&hub.challenge=1158201444",
      "", {});
  EXPECT_EQ(handshake.status, 200);
  EXPECT_EQ(handshake.body, "1158201444");
  EXPECT_EQ(api.CallUnauthenticated("GET",
                                    "/v1/whatsapp/webhook?hub.mode=subscribe&hub.verify_token="
                                    "wrong&hub.challenge=1158201444",
                                    "", {})
                .status,
            401);

  // The number not on WhatsApp: failed as address gone, and removed.
  json gone = SettledNotification(api, to_gone);
  EXPECT_EQ(DeliveryOn(gone, "whatsapp")["status"], "failed") << gone.dump();
  json user = ParseJsonOrDiscarded(api.Call("GET", "/v1/users/2").body);
  EXPECT_FALSE(user["addresses"].contains("whatsapp")) << user.dump();
  EXPECT_EQ(user["channels"]["whatsapp"], false) << user.dump();
  json again = Notify(api, 2, "Ertaga");
  EXPECT_EQ(std::count(again["channels"].begin(), again["channels"].end(), "whatsapp"), 0)
      << again.dump();

  // The throughput limit: tried again after Meta's delay, then sent.
  json busy = SettledNotification(api, to_busy);
  EXPECT_EQ(DeliveryOn(busy, "whatsapp")["status"], "sent") << busy.dump();
  EXPECT_EQ(DeliveryOn(busy, "whatsapp")["attempts"], 2) << busy.dump();

  // Meta could not deliver it after all: the status says failed and why.
  const json items = ParseJsonOrDiscarded(
      api.Call("GET", "/v1/deliveries?user_id=3&channel=whatsapp").body)["items"];
  ASSERT_EQ(items.size(), 1u);
  const auto failed = PostStatuses(
      api, {{{"id", items[0]["provider_message_id"]},
             {"status", "failed"},
             {"errors", {{{"code", 131049}, {"title", "Meta chose not to deliver"}}}}}});
  EXPECT_EQ(ParseJsonOrDiscarded(failed.body)["recorded"], 1) << failed.body;
  const json after = ParseJsonOrDiscarded(
      api.Call("GET", "/v1/deliveries?user_id=3&channel=whatsapp").body)["items"][0];
  EXPECT_EQ(after["provider_status"], "failed") << after.dump();
  EXPECT_EQ(after["last_error"], "whatsapp: 131049 Meta chose not to deliver") << after.dump();
}

TEST_F(WhatsAppBlackBox, TwoProcessesSendEachMessageOnceToAnApiSlowerThanTheLease) {
  SetDelay(3000ms);
  // Four deliveries a claim: one process's first claim cannot take the
  // whole queue, so both take part however the two are scheduled.
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"},
                                                  {"CHOPAR_DELIVERY_BATCH", "4"},
                                                  {"CHOPAR_LIMITS_HOURLY_WHATSAPP", "1000"}};
  const int port_a = FreeLoopbackPort();
  const int port_b = FreeLoopbackPort();
  auto a = StartServe(port_a, "a.log", env);
  auto b = StartServe(port_b, "b.log", env);
  Api api_a(port_a, kApiKey);
  Api api_b(port_b, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api_a.Healthy() && api_b.Healthy(); }, 60s))
      << a->Output() << b->Output();
  constexpr int kUsers = 12;
  for (int user = 1; user <= kUsers; ++user) OptIn(api_a, user);
  std::vector<json> created;
  for (int i = 0; i < 36; ++i) {
    Api& api = i % 2 == 0 ? api_a : api_b;
    created.push_back(
        Notify(api, 1 + i % kUsers, "n" + std::to_string(i), {{"channels", {"whatsapp"}}}));
  }
  for (const json& c : created) {
    json settled = SettledNotification(api_a, c, 60s);
    EXPECT_EQ(DeliveryOn(settled, "whatsapp")["status"], "sent") << settled.dump();
  }
  const auto sends = SendsByDelivery();
  EXPECT_EQ(sends.size(), created.size());
  for (const auto& [delivery, count] : sends) EXPECT_EQ(count, 1) << "delivery " << delivery;
  std::set<std::int64_t> senders;
  for (const auto& request : graph_.requests()) {
    if (request.instance) senders.insert(*request.instance);
  }
  EXPECT_EQ(senders.size(), 2u) << "both processes sent some";
}

TEST_F(WhatsAppBlackBox, Kill9MidSendNeverSendsAgain) {
  SetDelay(30000ms);
  const int port = FreeLoopbackPort();
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"}};
  auto serve = StartServe(port, "first.log", env);
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  OptIn(api, 1);
  json created = Notify(api, 1, "Muddat yaqin", {{"channels", {"whatsapp"}}});
  ASSERT_TRUE(WaitUntil([&] { return graph_.request_count() == 1; }, 30s));
  serve->Signal(SIGKILL);
  serve->Wait(10s);
  SetDelay(0ms);

  auto restarted = StartServe(port, "second.log", env);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << restarted->Output();
  json delivery = DeliveryOn(SettledNotification(api, created, 60s), "whatsapp");
  EXPECT_EQ(delivery["status"], "failed") << delivery.dump();
  EXPECT_NE(delivery["last_error"].get<std::string>().find("outcome unknown"), std::string::npos)
      << delivery.dump();
  EXPECT_EQ(graph_.request_count(), 1u) << "the message that may have gone is never sent again";
}

TEST_F(WhatsAppBlackBox, OffUntilTheUserOptsInThenPreferencesQuietHoursAndTheHourlyLimitHold) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log", {{"CHOPAR_LIMITS_HOURLY_WHATSAPP", "2"}});
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  // A number alone does not make WhatsApp a channel of the user's.
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"addresses", {{"whatsapp", Number(1)}}}}).status, 200);
  EXPECT_EQ(Notify(api, 1, "a")["channels"].size(), 0u);
  // Opted in, but off for one type and one category.
  OptIn(api, 1,
        {{"preferences",
          {{"types", {{"task.muted", {{"whatsapp", false}}}}},
           {"categories", {{"marketing", {{"whatsapp", false}}}}}}}});
  EXPECT_EQ(Notify(api, 1, "b", {{"type", "task.muted"}})["channels"].size(), 0u);
  EXPECT_EQ(
      Notify(api, 1, "c", {{"type", "promo.sale"}, {"category", "marketing"}})["channels"].size(),
      0u);
  EXPECT_EQ(Notify(api, 1, "d")["channels"], json({"whatsapp"}));

  // Quiet hours from an hour ago to two hours from now: nothing is sent.
  OptIn(api, 2, {{"quiet_hours", QuietHoursAroundNow()}, {"timezone", "UTC"}});
  json quiet = Notify(api, 2, "q", {{"channels", {"whatsapp"}}});
  json waiting;
  ASSERT_TRUE(WaitUntil(
      [&] {
        waiting = DeliveryOn(
            ParseJsonOrDiscarded(api.Call("GET", "/v1/notifications/" + quiet["id"].dump()).body),
            "whatsapp");
        return waiting.is_object() && waiting["last_error"].is_string() &&
               waiting["last_error"].get<std::string>().starts_with("quiet hours until");
      },
      30s))
      << waiting.dump();
  EXPECT_EQ(waiting["status"], "queued");

  // The hourly limit of 2 skips the third.
  OptIn(api, 3);
  std::vector<json> sent;
  for (int i = 0; i < 3; ++i) {
    sent.push_back(SettledNotification(
        api, Notify(api, 3, "h" + std::to_string(i), {{"channels", {"whatsapp"}}})));
  }
  EXPECT_EQ(DeliveryOn(sent[0], "whatsapp")["status"], "sent");
  EXPECT_EQ(DeliveryOn(sent[1], "whatsapp")["status"], "sent");
  EXPECT_EQ(DeliveryOn(sent[2], "whatsapp")["status"], "skipped") << sent[2].dump();

  for (const auto& request : graph_.requests()) {
    EXPECT_NE(ParseJsonOrDiscarded(request.body).value("to", ""), Number(2).substr(1))
        << "nothing is sent in quiet hours";
  }
}

TEST_F(WhatsAppBlackBox, WithoutAProviderTheSinkShowsItAndTheWebhookIsNotConfigured) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, DatabaseEnv(kApiKey), "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  for (const std::string refused : {"998901234567", "+998 90 123 45 67", "+0123", "call me"}) {
    const auto put = api.Call("PUT", "/v1/users/1", {{"addresses", {{"whatsapp", refused}}}});
    EXPECT_EQ(put.status, 400) << refused << ": " << put.body;
    EXPECT_EQ(ParseJsonOrDiscarded(put.body)["error"]["field"], "addresses.whatsapp") << put.body;
  }
  OptIn(api, 1);
  json created = Notify(api, 1, "Hisobot tayyor", {{"body", "Haftalik hisobot"}});
  EXPECT_EQ(created["channels"], json({"whatsapp"})) << created.dump();
  SettledNotification(api, created);
  const json messages = ParseJsonOrDiscarded(api.Call("GET", "/v1/sink/messages?user_id=1").body);
  bool found = false;
  for (const json& m : messages["items"]) {
    if (m["channel"] != "whatsapp") continue;
    found = true;
    EXPECT_EQ(m["address"], Number(1));
    EXPECT_NE(m.dump().find("Hisobot tayyor"), std::string::npos) << m.dump();
  }
  EXPECT_TRUE(found) << messages.dump();
  EXPECT_EQ(graph_.request_count(), 0u);
  EXPECT_EQ(PostStatuses(api, json::array()).status, 503);
}

}  // namespace
}  // namespace chopar
