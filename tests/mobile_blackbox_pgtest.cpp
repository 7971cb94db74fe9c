// Black-box, mobile push: the built `chopar serve` with its `mobile`
// provider (not the sink) sending to a fake FCM on 127.0.0.1 — its OAuth
// token endpoint checking the RS256 assertion with the service account's
// public key, its messages:send checking the access token — and to a fake
// APNs that speaks only HTTP/2 over TLS and checks the ES256 provider token.
// For the channel: every device of a user gets the notification; a token
// either service reports gone is removed and not chosen again; a throttled
// send is retried after the service's delay; two processes racing send each
// delivery once, even to a service slower than the lease; `kill -9`
// mid-send never sends again; preferences, quiet hours and the hourly limit
// hold; the devices API refuses bad input; the sink shows what the user
// would have seen.

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
#include "channels/mobile/jwt.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_h2_server.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"
#include "testing/test_keys.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::DeliveriesSettled;
using testing::DeliveryOn;
using testing::FakeH2Server;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::QuietHoursAroundNow;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "mobile-key";
constexpr char kTopic[] = "uz.example.app";
constexpr char kKeyId[] = "ABC123DEFG";
constexpr char kTeamId[] = "DEF123GHIJ";

// An FCM registration token of user `user` (Android), and an APNs device
// token (64 hex digits) for an iPhone.
std::string AndroidToken(const std::string& name) {
  return "fcm:" + name + "_APA91bHun4MxP5egoKMwt";
}
std::string IosToken(char digit) { return std::string(64, digit); }

std::string FormValue(const std::string& body, const std::string& name) {
  const auto pairs = core::DecodeFormPairs(body, core::MalformedEscapes::kRefuse);
  if (!pairs) return "";
  for (const auto& [key, value] : *pairs) {
    if (key == name) return value;
  }
  return "";
}

class MobileBlackBox : public testing::DatabaseBlackBox {
 protected:
  std::unique_ptr<ChildProcess> StartServe(int port, const std::string& log,
                                           std::map<std::string, std::string> more = {}) {
    const json account = {{"type", "service_account"},
                          {"project_id", "project-1"},
                          {"private_key_id", "k1"},
                          {"private_key", rsa_pem_},
                          {"client_email", "chopar@project-1.iam.gserviceaccount.com"},
                          {"token_uri", fcm_.url() + "/token"}};
    more.emplace("CHOPAR_CHANNELS_MOBILE_PROVIDER", "mobile");
    more.emplace("CHOPAR_CHANNELS_MOBILE_FCM_SERVICE_ACCOUNT", account.dump());
    more.emplace("CHOPAR_CHANNELS_MOBILE_FCM_URL", fcm_.url());
    more.emplace("CHOPAR_CHANNELS_MOBILE_APNS_KEY", p8_pem_);
    more.emplace("CHOPAR_CHANNELS_MOBILE_APNS_KEY_ID", kKeyId);
    more.emplace("CHOPAR_CHANNELS_MOBILE_APNS_TEAM_ID", kTeamId);
    more.emplace("CHOPAR_CHANNELS_MOBILE_APNS_TOPIC", kTopic);
    more.emplace("CHOPAR_CHANNELS_MOBILE_APNS_URL", apns_.url());
    more.emplace("CHOPAR_CHANNELS_MOBILE_APNS_CA_FILE", apns_.ca_file());
    return Start("serve", port, DatabaseEnv(kApiKey, std::move(more)), log);
  }

  // Google's token endpoint and FCM's messages:send in one fake.
  FakeHttpServer::Response Fcm(const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex_);
    FakeHttpServer::Response response;
    if (request.target == "/token") {
      const auto verified =
          channels::mobile::VerifyJwt(FormValue(request.body, "assertion"), rsa_public_.get());
      if (FormValue(request.body, "grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" ||
          !verified || verified->claims.value("aud", "") != fcm_.url() + "/token" ||
          verified->claims.value("scope", "") !=
              "https://www.googleapis.com/auth/firebase.messaging") {
        response.status = 400;
        response.body = R"({"error": "invalid_grant", "error_description": "Invalid JWT"})";
        return response;
      }
      issued_.insert("ya29.token-" + std::to_string(issued_.size() + 1));
      response.body = json({{"access_token", "ya29.token-" + std::to_string(issued_.size())},
                            {"expires_in", 3599},
                            {"token_type", "Bearer"}})
                          .dump();
      return response;
    }
    const auto auth = request.headers.find("authorization");
    if (auth == request.headers.end() || !auth->second.starts_with("Bearer ") ||
        !issued_.contains(auth->second.substr(7))) {
      response.status = 401;
      response.body = R"({"error": {"code": 401, "status": "UNAUTHENTICATED"}})";
      return response;
    }
    const json body = ParseJsonOrDiscarded(request.body);
    if (request.target != "/v1/projects/project-1/messages:send" || !body.is_object() ||
        !body["message"].is_object() || !body["message"]["token"].is_string()) {
      response.status = 400;
      response.body = R"({"error": {"code": 400, "status": "INVALID_ARGUMENT"}})";
      return response;
    }
    const std::string token = body["message"]["token"];
    if (gone_.contains(token)) return FcmError(404, "NOT_FOUND", "UNREGISTERED");
    if (throttled_.erase(token) > 0) {
      FakeHttpServer::Response busy = FcmError(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED");
      busy.headers["Retry-After"] = "1";
      return busy;
    }
    response.body =
        json({{"name", "projects/project-1/messages/" + std::to_string(++sent_)}}).dump();
    response.delay = delay_;
    return response;
  }

  static FakeHttpServer::Response FcmError(int status, const std::string& name,
                                           const std::string& code) {
    FakeHttpServer::Response r;
    r.status = status;
    r.body = json({{"error",
                    {{"code", status},
                     {"message", "Requested entity was not found."},
                     {"status", name},
                     {"details",
                      {{{"@type", "type.googleapis.com/google.firebase.fcm.v1.FcmError"},
                        {"errorCode", code}}}}}}})
                 .dump();
    return r;
  }

  // APNs: HTTP/2 only (FakeH2Server refuses anything else), the provider
  // token verified with the .p8 key's public half.
  FakeH2Server::Response Apns(const FakeH2Server::Request& request) {
    std::lock_guard lock(mutex_);
    FakeH2Server::Response response;
    const auto header = [&](const char* name) {
      const auto it = request.headers.find(name);
      return it == request.headers.end() ? std::string() : it->second;
    };
    const std::string auth = header("authorization");
    const auto verified = auth.starts_with("bearer ")
                              ? channels::mobile::VerifyJwt(auth.substr(7), p8_public_.get())
                              : std::nullopt;
    if (!verified || verified->header.value("kid", "") != kKeyId ||
        verified->claims.value("iss", "") != kTeamId) {
      response.status = 403;
      response.body = R"({"reason": "InvalidProviderToken"})";
      return response;
    }
    if (header("apns-topic") != kTopic || header("apns-push-type") != "alert" ||
        request.method != "POST" || !request.path.starts_with("/3/device/")) {
      response.status = 400;
      response.body = R"({"reason": "BadTopic"})";
      return response;
    }
    const std::string token = request.path.substr(10);
    if (gone_.contains(token)) {
      response.status = 410;
      response.body = R"({"reason": "Unregistered", "timestamp": 1733490000000})";
      return response;
    }
    response.headers["apns-id"] =
        "5A1B2C3D-0000-4000-8000-00000000000" + std::to_string(++sent_ % 10);
    return response;
  }

  void AddDevice(Api& api, int user, const std::string& platform, const std::string& token) {
    const auto added = api.Call("POST", "/v1/users/" + std::to_string(user) + "/devices",
                                {{"platform", platform}, {"token", token}, {"app", kTopic}});
    ASSERT_EQ(added.status, 201) << added.body;
  }

  json Notify(Api& api, int user, const std::string& title, json more = json::object()) {
    more["user_id"] = user;
    more["type"] = more.value("type", "task.due");
    more["title"] = title;
    more["body"] = more.value("body", "Hisobot ertaga");
    more["link"] = "/tasks/1";
    const auto created = api.Call("POST", "/v1/notifications", more);
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  }

  void SetDelay(std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    delay_ = delay;
  }

  // FCM sends (not token requests) by the delivery they carry.
  std::map<std::int64_t, int> FcmSendsByDelivery() const {
    std::map<std::int64_t, int> sends;
    for (const auto& request : fcm_.requests()) {
      if (request.target != "/token" && request.delivery_id) ++sends[*request.delivery_id];
    }
    return sends;
  }
  std::size_t TokenRequests() const {
    const auto requests = fcm_.requests();
    return static_cast<std::size_t>(std::count_if(
        requests.begin(), requests.end(), [](const auto& r) { return r.target == "/token"; }));
  }

  const std::string rsa_pem_ = testing::NewRsaKeyPem();
  const core::EvpPkey rsa_public_ = testing::PublicKeyOfPem(rsa_pem_);
  const std::string p8_pem_ = testing::NewP256KeyPem();
  const core::EvpPkey p8_public_ = testing::PublicKeyOfPem(p8_pem_);
  std::mutex mutex_;
  std::set<std::string> issued_;
  std::set<std::string> gone_;
  std::set<std::string> throttled_;
  std::chrono::milliseconds delay_{0};
  std::int64_t sent_ = 0;
  FakeHttpServer fcm_{[this](const FakeHttpServer::Request& r) { return Fcm(r); }};
  FakeH2Server apns_{[this](const FakeH2Server::Request& r) { return Apns(r); }};
};

TEST_F(MobileBlackBox, EveryDeviceGetsItGoneTokensAreRemovedAndAThrottledSendIsRetried) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_NE(serve->Output().find("mobile=mobile"), std::string::npos) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"locale", "uz"}}).status, 200);
  for (int user = 2; user <= 4; ++user) {
    ASSERT_EQ(api.Call("PUT", "/v1/users/" + std::to_string(user), json::object()).status, 200);
  }
  AddDevice(api, 1, "android", AndroidToken("u1"));
  AddDevice(api, 1, "ios", IosToken('a'));
  AddDevice(api, 2, "android", AndroidToken("gone"));
  AddDevice(api, 3, "ios", IosToken('b'));
  AddDevice(api, 4, "android", AndroidToken("busy"));
  {
    std::lock_guard lock(mutex_);
    gone_ = {AndroidToken("gone"), IosToken('b')};
    throttled_ = {AndroidToken("busy")};
  }

  json to_phones = Notify(api, 1, "Muddat yaqin", {{"dedup_key", "task-1-due"}});
  EXPECT_EQ(to_phones["channels"], json({"mobile"}));
  json phones = SettledNotification(api, to_phones);
  EXPECT_EQ(DeliveryOn(phones, "mobile")["status"], "sent") << phones.dump();

  // Android through FCM, with the access token the assertion bought.
  bool fcm_found = false;
  for (const auto& request : fcm_.requests()) {
    const json body = ParseJsonOrDiscarded(request.body);
    if (!body.is_object() || !body["message"].is_object()) continue;  // a token request
    const json& message = body["message"];
    if (message["token"] != AndroidToken("u1")) continue;
    fcm_found = true;
    EXPECT_EQ(request.answer_status, 200);
    EXPECT_EQ(message["notification"]["title"], "Muddat yaqin");
    EXPECT_EQ(message["notification"]["body"], "Hisobot ertaga");
    EXPECT_EQ(message["data"]["link"], "http://127.0.0.1:" + std::to_string(port) + "/tasks/1")
        << "the link, absolute against public_url";
    EXPECT_EQ(message["data"]["notification_id"], to_phones["id"].dump());
    EXPECT_EQ(message["android"]["collapse_key"], "task-1-due");
  }
  EXPECT_TRUE(fcm_found);
  // The iPhone through APNs over HTTP/2, with the provider token.
  bool apns_found = false;
  for (const auto& request : apns_.requests()) {
    if (request.path != "/3/device/" + IosToken('a')) continue;
    apns_found = true;
    EXPECT_EQ(request.headers.at("apns-push-type"), "alert");
    EXPECT_EQ(request.headers.at("apns-topic"), kTopic);
    EXPECT_EQ(request.headers.at("apns-collapse-id"), "task-1-due");
    EXPECT_EQ(request.headers.at("apns-priority"), "5");
    const json aps = ParseJsonOrDiscarded(request.body)["aps"];
    EXPECT_EQ(aps["alert"]["title"], "Muddat yaqin") << request.body;
  }
  EXPECT_TRUE(apns_found);
  EXPECT_EQ(apns_.refused_count(), 0u) << "chopar speaks HTTP/2 to APNs";

  // Gone on either service: failed, the device removed, the channel no
  // longer chosen.
  for (int user : {2, 3}) {
    json gone = SettledNotification(api, Notify(api, user, "Muddat yaqin"));
    EXPECT_EQ(DeliveryOn(gone, "mobile")["status"], "failed") << gone.dump();
    const json devices = ParseJsonOrDiscarded(
        api.Call("GET", "/v1/users/" + std::to_string(user) + "/devices").body);
    EXPECT_EQ(devices["items"], json::array()) << devices.dump();
    const json user_doc =
        ParseJsonOrDiscarded(api.Call("GET", "/v1/users/" + std::to_string(user)).body);
    EXPECT_EQ(user_doc["channels"]["mobile"], false) << user_doc.dump();
    EXPECT_EQ(Notify(api, user, "Ertaga")["channels"], json::array());
  }

  // QUOTA_EXCEEDED: tried again after FCM's Retry-After, then sent.
  json busy = SettledNotification(api, Notify(api, 4, "Muddat yaqin"));
  EXPECT_EQ(DeliveryOn(busy, "mobile")["status"], "sent") << busy.dump();
  EXPECT_EQ(DeliveryOn(busy, "mobile")["attempts"], 2) << busy.dump();
  EXPECT_EQ(TokenRequests(), 1u) << "the access token is cached, not fetched per send";
}

TEST_F(MobileBlackBox, TwoProcessesSendEachDeliveryOnceToAServiceSlowerThanTheLease) {
  SetDelay(3000ms);
  // Four deliveries a claim: one process's first claim cannot take the
  // whole queue, so both take part however the two are scheduled.
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"},
                                                  {"CHOPAR_DELIVERY_BATCH", "4"},
                                                  {"CHOPAR_LIMITS_HOURLY_MOBILE", "1000"}};
  const int port_a = FreeLoopbackPort();
  const int port_b = FreeLoopbackPort();
  auto a = StartServe(port_a, "a.log", env);
  auto b = StartServe(port_b, "b.log", env);
  Api api_a(port_a, kApiKey);
  Api api_b(port_b, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api_a.Healthy() && api_b.Healthy(); }, 60s))
      << a->Output() << b->Output();
  constexpr int kUsers = 12;
  for (int user = 1; user <= kUsers; ++user) {
    ASSERT_EQ(api_a.Call("PUT", "/v1/users/" + std::to_string(user), json::object()).status, 200);
    AddDevice(api_a, user, "android", AndroidToken("u" + std::to_string(user)));
  }
  std::vector<json> created;
  for (int i = 0; i < 36; ++i) {
    created.push_back(Notify(i % 2 == 0 ? api_a : api_b, 1 + i % kUsers, "n" + std::to_string(i)));
  }
  for (const json& c : created) {
    json settled = SettledNotification(api_a, c, 60s);
    EXPECT_EQ(DeliveryOn(settled, "mobile")["status"], "sent") << settled.dump();
  }
  const auto sends = FcmSendsByDelivery();
  EXPECT_EQ(sends.size(), created.size());
  for (const auto& [delivery, count] : sends) EXPECT_EQ(count, 1) << "delivery " << delivery;
  std::set<std::int64_t> senders;
  for (const auto& request : fcm_.requests()) {
    if (request.instance && request.target != "/token") senders.insert(*request.instance);
  }
  EXPECT_EQ(senders.size(), 2u) << "both processes sent some";
}

TEST_F(MobileBlackBox, Kill9MidSendNeverSendsAgain) {
  SetDelay(30000ms);
  const int port = FreeLoopbackPort();
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"}};
  auto serve = StartServe(port, "first.log", env);
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", json::object()).status, 200);
  AddDevice(api, 1, "android", AndroidToken("slow"));
  json created = Notify(api, 1, "Muddat yaqin");
  ASSERT_TRUE(WaitUntil([&] { return FcmSendsByDelivery().size() == 1; }, 30s));
  serve->Signal(SIGKILL);
  serve->Wait(10s);
  SetDelay(0ms);

  auto restarted = StartServe(port, "second.log", env);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << restarted->Output();
  json delivery = DeliveryOn(SettledNotification(api, created, 60s), "mobile");
  EXPECT_EQ(delivery["status"], "failed") << delivery.dump();
  EXPECT_NE(delivery["last_error"].get<std::string>().find("outcome unknown"), std::string::npos)
      << delivery.dump();
  EXPECT_EQ(FcmSendsByDelivery().begin()->second, 1)
      << "the push that may have arrived is never sent again";
}

TEST_F(MobileBlackBox, PreferencesQuietHoursAndTheHourlyLimitHold) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log", {{"CHOPAR_LIMITS_HOURLY_MOBILE", "2"}});
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  ASSERT_EQ(api.Call("PUT", "/v1/users/1",
                     {{"preferences",
                       {{"types", {{"task.muted", {{"mobile", false}}}}},
                        {"categories", {{"marketing", {{"mobile", false}}}}}}}})
                .status,
            200);
  AddDevice(api, 1, "android", AndroidToken("prefs"));
  EXPECT_EQ(Notify(api, 1, "a", {{"type", "task.muted"}})["channels"].size(), 0u);
  EXPECT_EQ(
      Notify(api, 1, "b", {{"type", "promo.sale"}, {"category", "marketing"}})["channels"].size(),
      0u);
  EXPECT_EQ(Notify(api, 1, "c")["channels"], json({"mobile"}));

  ASSERT_EQ(
      api.Call("PUT", "/v1/users/2", {{"quiet_hours", QuietHoursAroundNow()}, {"timezone", "UTC"}})
          .status,
      200);
  AddDevice(api, 2, "ios", IosToken('c'));
  json quiet = Notify(api, 2, "q");
  json waiting;
  ASSERT_TRUE(WaitUntil(
      [&] {
        waiting = DeliveryOn(
            ParseJsonOrDiscarded(api.Call("GET", "/v1/notifications/" + quiet["id"].dump()).body),
            "mobile");
        return waiting.is_object() && waiting["last_error"].is_string() &&
               waiting["last_error"].get<std::string>().starts_with("quiet hours until");
      },
      30s))
      << waiting.dump();
  EXPECT_EQ(waiting["status"], "queued");
  EXPECT_EQ(apns_.request_count(), 0u) << "nothing is sent in quiet hours";

  ASSERT_EQ(api.Call("PUT", "/v1/users/3", json::object()).status, 200);
  AddDevice(api, 3, "android", AndroidToken("limited"));
  std::vector<json> sent;
  for (int i = 0; i < 3; ++i)
    sent.push_back(SettledNotification(api, Notify(api, 3, "h" + std::to_string(i))));
  EXPECT_EQ(DeliveryOn(sent[0], "mobile")["status"], "sent");
  EXPECT_EQ(DeliveryOn(sent[1], "mobile")["status"], "sent");
  EXPECT_EQ(DeliveryOn(sent[2], "mobile")["status"], "skipped") << sent[2].dump();
}

TEST_F(MobileBlackBox, TheDevicesApiChecksItsInputAndTheSinkShowsThePush) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, DatabaseEnv(kApiKey), "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_EQ(api.Call("POST", "/v1/users/1/devices",
                     {{"platform", "android"}, {"token", AndroidToken("x")}})
                .status,
            404)
      << "no such user";
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", json::object()).status, 200);
  for (const auto& [bad, field] : std::vector<std::pair<json, std::string>>{
           {{{"platform", "windows"}, {"token", AndroidToken("x")}}, "platform"},
           {{{"platform", "android"}, {"token", "short"}}, "token"},
           {{{"platform", "android"}, {"token", "has space in it"}}, "token"},
           {{{"platform", "ios"}, {"token", IosToken('d')}, {"app", "bad app!"}}, "app"},
           {{{"platform", "ios"}, {"token", IosToken('d')}, {"colour", "red"}}, "colour"}}) {
    const auto refused = api.Call("POST", "/v1/users/1/devices", bad);
    EXPECT_EQ(refused.status, 400) << bad.dump() << ": " << refused.body;
    EXPECT_EQ(ParseJsonOrDiscarded(refused.body)["error"]["field"], field) << refused.body;
  }
  const auto first = api.Call("POST", "/v1/users/1/devices",
                              {{"platform", "android"}, {"token", AndroidToken("x")}});
  ASSERT_EQ(first.status, 201) << first.body;
  const json device = ParseJsonOrDiscarded(first.body);
  EXPECT_EQ(device["platform"], "android");
  EXPECT_EQ(device["app"], "");
  const auto again =
      api.Call("POST", "/v1/users/1/devices",
               {{"platform", "android"}, {"token", AndroidToken("x")}, {"app", kTopic}});
  EXPECT_EQ(again.status, 200) << "the same token keeps its id";
  EXPECT_EQ(ParseJsonOrDiscarded(again.body)["id"], device["id"]);
  for (char digit = '0'; digit < '9'; ++digit) AddDevice(api, 1, "ios", IosToken(digit));
  EXPECT_EQ(api.Call("POST", "/v1/users/1/devices", {{"platform", "ios"}, {"token", IosToken('e')}})
                .status,
            409)
      << "ten devices at most";
  EXPECT_EQ(ParseJsonOrDiscarded(api.Call("GET", "/v1/users/1/devices").body)["items"].size(), 10u);
  for (char digit = '0'; digit < '9'; ++digit) {
    const json items = ParseJsonOrDiscarded(api.Call("GET", "/v1/users/1/devices").body)["items"];
    ASSERT_FALSE(items.empty());
    EXPECT_EQ(api.Call("DELETE", "/v1/users/1/devices/" + items.back()["id"].dump()).status, 204);
  }
  EXPECT_EQ(api.Call("DELETE", "/v1/users/1/devices/999999").status, 404);

  // The app registers its own token with the user's subscriber token; it
  // cannot take another user's.
  ASSERT_EQ(api.Call("PUT", "/v1/users/2", json::object()).status, 200);
  const std::string subscriber =
      ParseJsonOrDiscarded(api.Call("GET", "/v1/users/2/token").body)["token"];
  Api as_user(port, subscriber);
  EXPECT_EQ(
      as_user
          .Call("POST", "/v1/inbox/devices", {{"platform", "web"}, {"token", AndroidToken("web2")}})
          .status,
      201);
  EXPECT_EQ(as_user
                .Call("POST", "/v1/inbox/devices",
                      {{"platform", "android"}, {"token", AndroidToken("x")}})
                .status,
            409)
      << "user 1's token";

  json created = Notify(api, 1, "Hisobot tayyor", {{"body", "Haftalik hisobot"}});
  EXPECT_EQ(created["channels"], json({"mobile"})) << created.dump();
  SettledNotification(api, created);
  const json messages = ParseJsonOrDiscarded(api.Call("GET", "/v1/sink/messages?user_id=1").body);
  bool found = false;
  for (const json& m : messages["items"]) {
    if (m["channel"] != "mobile") continue;
    found = true;
    EXPECT_EQ(m["address"], "android device " + device["id"].dump());
    EXPECT_NE(m.dump().find("Hisobot tayyor"), std::string::npos) << m.dump();
  }
  EXPECT_TRUE(found) << messages.dump();
  EXPECT_EQ(fcm_.request_count(), 0u);
}

}  // namespace
}  // namespace chopar
