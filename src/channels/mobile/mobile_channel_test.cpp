// The mobile channel against a fake FCM (its token endpoint and
// messages:send, HTTP/1.1) and a fake APNs (HTTP/2 over TLS): each device of
// a message reached through its service, the message's outcome from its
// devices' answers, the gone devices listed, a refused credential renewed.
#include "channels/mobile/mobile_channel.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "testing/fake_h2_server.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;
using testing::FakeH2Server;
using testing::FakeHttpServer;

const std::string kIphone(64, 'c');
const std::string kGoneIphone(64, 'd');

class MobileChannelTest : public ::testing::Test {
 protected:
  std::unique_ptr<MobileChannel> Channel(bool with_fcm = true, bool with_apns = true) {
    MobileSettings settings;
    settings.public_url = "https://app.example";
    settings.fcm_url = fcm_.url();
    settings.apns_url = apns_.url();
    settings.apns_topic = "uz.example.app";
    settings.apns_ca_file = apns_.ca_file();
    settings.timeout = std::chrono::seconds(5);
    std::unique_ptr<FcmTokenSource> fcm;
    if (with_fcm) {
      const json account = {{"type", "service_account"},
                            {"project_id", "project-1"},
                            {"private_key", testing::NewRsaKeyPem()},
                            {"client_email", "chopar@project-1.iam.gserviceaccount.com"},
                            {"token_uri", fcm_.url() + "/token"}};
      fcm = std::make_unique<FcmTokenSource>(ParseServiceAccountKey(account.dump()), http_, clock_);
    }
    std::unique_ptr<ApnsTokenCache> apns;
    if (with_apns) {
      apns = std::make_unique<ApnsTokenCache>(
          LoadApnsKey(testing::NewP256KeyPem(), "ABC123DEFG", "DEF123GHIJ"), clock_);
    }
    return std::make_unique<MobileChannel>(settings, std::move(fcm), std::move(apns), http_,
                                           clock_);
  }

  FakeHttpServer::Response Fcm(const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex_);
    FakeHttpServer::Response r;
    if (request.target == "/token") {
      if (token_endpoint_down_) {
        r.status = 503;
        r.body = R"({"error": "backend_error"})";
        return r;
      }
      r.body = json({{"access_token", "ya29." + std::to_string(++tokens_)},
                     {"expires_in", 3599},
                     {"token_type", "Bearer"}})
                   .dump();
      return r;
    }
    const std::string bearer = request.headers.at("authorization");
    if (refuse_next_token_ && bearer == "Bearer ya29." + std::to_string(tokens_)) {
      refuse_next_token_ = false;
      r.status = 401;
      r.body = R"({"error": {"code": 401, "status": "UNAUTHENTICATED"}})";
      return r;
    }
    const std::string token = json::parse(request.body)["message"]["token"];
    if (token == "fcm:gone_token_1") {
      r.status = 404;
      r.body = R"({"error": {"code": 404, "status": "NOT_FOUND", "details": [{"@type":
        "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}})";
      return r;
    }
    r.body = R"({"name": "projects/project-1/messages/0:1"})";
    return r;
  }

  FakeH2Server::Response Apns(const FakeH2Server::Request& request) {
    if (request.path == "/3/device/" + kGoneIphone) return {410, {}, R"({"reason":"Unregistered"})"};
    return {200, {{"apns-id", "EC1BF194-B3B2-424A-89A7-3A6A1C8FD2A5"}}, ""};
  }

  static Message To(std::vector<DeviceTarget> devices) {
    Message m;
    m.delivery_id = 9;
    m.notification_id = 42;
    m.title = "Muddat yaqin";
    m.body = "Hisobot ertaga";
    m.link = "/tasks/1";
    m.data = {{"task", "1"}, {"badge", 3}};
    m.dedup_key = "task-1-due";
    m.device_targets = std::move(devices);
    return m;
  }

  std::size_t Sends() const {
    std::size_t n = 0;
    for (const auto& r : fcm_.requests()) n += r.target != "/token";
    return n;
  }

  std::mutex mutex_;
  int tokens_ = 0;
  bool token_endpoint_down_ = false;
  bool refuse_next_token_ = false;
  core::SimulatedClock clock_{core::TimePoint(std::chrono::seconds(1'700'000'000))};
  net::HttpClient http_;
  FakeHttpServer fcm_{[this](const FakeHttpServer::Request& r) { return Fcm(r); }};
  FakeH2Server apns_{[this](const FakeH2Server::Request& r) { return Apns(r); }};
};

TEST_F(MobileChannelTest, EachDeviceThroughItsServiceTheGoneOnesListed) {
  auto channel = Channel();
  const auto outcomes = channel->Send(std::vector<Message>{
      To({{1, "android", "fcm:phone_token_1", ""}, {2, "ios", kIphone, ""},
          {3, "android", "fcm:gone_token_1", ""}}),
      To({{4, "ios", kGoneIphone, ""}, {5, "android", "fcm:gone_token_1", ""}})});
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent) << outcomes[0].detail;
  EXPECT_EQ(outcomes[0].gone_devices, std::vector<std::int64_t>{3});
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kAddressGone) << "every device gone";
  EXPECT_EQ(outcomes[1].gone_devices, (std::vector<std::int64_t>{4, 5}));

  ASSERT_EQ(apns_.request_count(), 2u);
  const auto iphone = apns_.requests()[0].path == "/3/device/" + kIphone ? apns_.requests()[0]
                                                                           : apns_.requests()[1];
  EXPECT_EQ(iphone.headers.at("apns-collapse-id"), "task-1-due");
  const json payload = json::parse(iphone.body);
  EXPECT_EQ(payload["aps"]["badge"], 3);
  EXPECT_EQ(payload["link"], "https://app.example/tasks/1");
  EXPECT_EQ(payload["notification_id"], "42");

  const auto requests = fcm_.requests();
  EXPECT_EQ(std::count_if(requests.begin(), requests.end(),
                          [](const auto& r) { return r.target == "/token"; }),
            1)
      << "one access token for the batch";
  for (const auto& r : requests) {
    if (r.target == "/token") continue;
    EXPECT_EQ(r.target, "/v1/projects/project-1/messages:send");
    const json message = json::parse(r.body)["message"];
    EXPECT_EQ(message["data"]["task"], "1");
    EXPECT_EQ(message["android"]["collapse_key"], "task-1-due");
  }
}

TEST_F(MobileChannelTest, ARefusedAccessTokenIsRenewedAndTheMessageRetried) {
  auto channel = Channel();
  refuse_next_token_ = true;
  const auto first = channel->Send(std::vector<Message>{To({{1, "android", "fcm:phone_token_1", ""}})});
  EXPECT_EQ(first[0].kind, OutcomeKind::kRetry) << first[0].detail;
  const auto second = channel->Send(std::vector<Message>{To({{1, "android", "fcm:phone_token_1", ""}})});
  EXPECT_EQ(second[0].kind, OutcomeKind::kSent) << second[0].detail;
  EXPECT_EQ(tokens_, 2) << "the refused token was dropped and a new one fetched";
}

TEST_F(MobileChannelTest, WithoutAnAccessTokenNothingIsSentAndTheMessageIsRetried) {
  auto channel = Channel();
  token_endpoint_down_ = true;
  const auto outcomes = channel->Send(std::vector<Message>{To({{1, "android", "fcm:phone_token_1", ""}})});
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_NE(outcomes[0].detail.find("no FCM access token"), std::string::npos) << outcomes[0].detail;
  EXPECT_EQ(Sends(), 0u);
}

TEST_F(MobileChannelTest, ADeviceNoServiceIsConfiguredForFailsUnlessAnotherTookIt) {
  auto apns_only = Channel(/*with_fcm=*/false, /*with_apns=*/true);
  const auto outcomes = apns_only->Send(std::vector<Message>{
      To({{1, "android", "fcm:phone_token_1", ""}}),
      To({{1, "android", "fcm:phone_token_1", ""}, {2, "ios", kIphone, ""}})});
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcomes[0].detail.find("fcm_service_account"), std::string::npos) << outcomes[0].detail;
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kSent);
  EXPECT_TRUE(outcomes[1].gone_devices.empty()) << "an unserved device is kept";
  // An iPhone registered through Firebase (not an APNs token) goes to FCM.
  auto both = Channel();
  const auto via_fcm = both->Send(std::vector<Message>{To({{7, "ios", "fcm:iphone_via_firebase", ""}})});
  EXPECT_EQ(via_fcm[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(Sends(), 1u);
}

}  // namespace
}  // namespace chopar::channels::mobile
