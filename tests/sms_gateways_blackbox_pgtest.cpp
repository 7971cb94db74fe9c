// Black-box, SMS through Twilio and Playmobile: the built `chopar serve`
// with [[channels.sms.providers]] listing a fake Twilio (Messages.json,
// basic auth, form fields) then a fake Playmobile (broker-api/send, basic
// auth, JSON) on 127.0.0.1. Twilio sends while it is up, and its signed
// status callback marks the delivery delivered (a forged one is refused
// with 401 and changes nothing; a repeat changes nothing); while Twilio
// answers 503 Playmobile sends each message once, and its delivery report
// on the secret path marks it.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "channels/sms/twilio_callback.hpp"
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
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "sms-gateways-key";
constexpr char kAccountSid[] = "AC0123456789abcdef0123456789abcdef";
constexpr char kAuthToken[] = "twilio-auth-token";
constexpr char kCallbackSecret[] = "sms-report-secret-0123456789";

std::string Basic(const std::string& user, const std::string& password) {
  return "Basic " + core::Base64Encode(user + ":" + password);
}

class SmsGatewaysBlackBox : public testing::DatabaseBlackBox {
 protected:
  FakeHttpServer::Response Twilio(const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    const auto auth = request.headers.find("authorization");
    if (auth == request.headers.end() || auth->second != Basic(kAccountSid, kAuthToken)) {
      response.status = 401;
      response.body = R"({"code": 20003, "message": "Authenticate", "status": 401})";
      return response;
    }
    if (twilio_down_) {
      response.status = 503;
      response.body = R"({"code": 20500, "message": "Service unavailable", "status": 503})";
      return response;
    }
    response.status = 201;
    response.body = json({{"sid", "SM" + std::to_string(request.delivery_id.value_or(0))},
                          {"status", "queued"}})
                        .dump();
    return response;
  }

  static FakeHttpServer::Response Playmobile(const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    const auto auth = request.headers.find("authorization");
    if (request.target != "/broker-api/send" || auth == request.headers.end() ||
        auth->second != Basic("acme", "pm-pass")) {
      response.status = 401;
      response.body = R"({"error-code": 401, "error-description": "Unauthorized"})";
      return response;
    }
    response.content_type = "text/plain";
    response.body = "Request is received";
    return response;
  }

  std::unique_ptr<ChildProcess> Serve() {
    port_ = FreeLoopbackPort();
    std::ostringstream config;
    config << "[channels.sms]\n"
              "callback_secret = \""
           << kCallbackSecret << "\"\n\n"
           << "[[channels.sms.providers]]\n"
              "kind = \"twilio\"\n"
              "twilio_account_sid = \""
           << kAccountSid << "\"\n"
           << "twilio_auth_token = \"" << kAuthToken << "\"\n"
           << "twilio_from = \"+15005550006\"\n"
              "twilio_base_url = \""
           << twilio_.url() << "\"\n"
           << "failure_threshold = 1000\n\n"
              "[[channels.sms.providers]]\n"
              "kind = \"playmobile\"\n"
              "playmobile_login = \"acme\"\n"
              "playmobile_password = \"pm-pass\"\n"
              "playmobile_originator = \"ACME\"\n"
              "playmobile_base_url = \""
           << playmobile_.url() << "\"\n";
    auto serve = StartWithConfig("serve", port_, DatabaseEnv(kApiKey), config.str(), "serve.log");
    api_ = std::make_unique<Api>(port_, kApiKey);
    EXPECT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
    EXPECT_NE(serve->Output().find("sms=twilio>playmobile"), std::string::npos) << serve->Output();
    return serve;
  }

  // An SMS notification to `user`, settled; its SMS delivery as GET
  // /v1/deliveries shows it.
  json SendSms(int user) {
    EXPECT_EQ(api_->Call("PUT", "/v1/users/" + std::to_string(user),
                         {{"phone", "+99890123456" + std::to_string(user % 10)},
                          {"preferences", {{"sms", true}}}})
                  .status,
              200);
    const auto created = api_->Call("POST", "/v1/notifications",
                                    {{"user_id", user},
                                     {"type", "otp"},
                                     {"title", "Kod"},
                                     {"body", "Tasdiqlash kodi: 4821"},
                                     {"channels", {"sms"}}});
    EXPECT_EQ(created.status, 201) << created.body;
    const json settled = SettledNotification(*api_, ParseJsonOrDiscarded(created.body), 60s);
    return Delivery(user, DeliveryOn(settled, "sms")["id"].get<std::int64_t>());
  }

  json Delivery(int user, std::int64_t id) {
    const json items = ParseJsonOrDiscarded(
        api_->Call("GET", "/v1/deliveries?channel=sms&user_id=" + std::to_string(user))
            .body)["items"];
    for (const json& d : items) {
      if (d["id"] == id) return d;
    }
    ADD_FAILURE() << "no delivery " << id << " in " << items.dump();
    return json::object();
  }

  // Twilio's status callback for `sid` with `status`, signed under `token`
  // for the URL the send named as its StatusCallback.
  net::HttpResponse TwilioCallback(const std::string& url, const std::string& sid,
                                   const std::string& status, const std::string& token) {
    const std::vector<std::pair<std::string, std::string>> params = {{"AccountSid", kAccountSid},
                                                                     {"MessageSid", sid},
                                                                     {"MessageStatus", status},
                                                                     {"To", "+998901234561"}};
    std::string body;
    for (const auto& [name, value] : params) {
      body += (body.empty() ? "" : "&") + name + "=" + core::PercentEncode(value);
    }
    return api_->CallUnauthenticated(
        "POST", std::string(channels::sms::kTwilioStatusPath), body,
        {"Content-Type: application/x-www-form-urlencoded",
         "X-Twilio-Signature: " + channels::sms::TwilioSignature(token, url, params)});
  }

  std::atomic<bool> twilio_down_{false};
  FakeHttpServer twilio_{[this](const FakeHttpServer::Request& r) { return Twilio(r); }};
  FakeHttpServer playmobile_{[](const FakeHttpServer::Request& r) { return Playmobile(r); }};
  int port_ = 0;
  std::unique_ptr<Api> api_;
};

TEST_F(SmsGatewaysBlackBox, TwilioSendsAndItsSignedStatusCallbackMarksTheDelivery) {
  auto serve = Serve();
  const json delivery = SendSms(1);
  EXPECT_EQ(delivery["status"], "sent") << delivery.dump();
  EXPECT_EQ(delivery["provider"], "twilio");
  const std::string sid = "SM" + delivery["id"].dump();
  EXPECT_EQ(delivery["provider_message_id"], sid);

  const auto requests = twilio_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target,
            std::string("/2010-04-01/Accounts/") + kAccountSid + "/Messages.json");
  const auto form = core::DecodeFormPairs(requests[0].body, core::MalformedEscapes::kRefuse);
  ASSERT_TRUE(form.has_value()) << requests[0].body;
  std::map<std::string, std::string> fields(form->begin(), form->end());
  EXPECT_EQ(fields["To"], "+998901234561");
  EXPECT_EQ(fields["From"], "+15005550006");
  EXPECT_NE(fields["Body"].find("Tasdiqlash kodi: 4821"), std::string::npos) << fields["Body"];
  const std::string callback_url = fields["StatusCallback"];
  EXPECT_EQ(callback_url, "http://127.0.0.1:" + std::to_string(port_) + "/v1/sms/twilio/status");

  // A forged signature: refused, nothing recorded.
  const auto forged = TwilioCallback(callback_url, sid, "delivered", "not-the-token");
  EXPECT_EQ(forged.status, 401) << forged.body;
  EXPECT_TRUE(Delivery(1, delivery["id"])["provider_status"].is_null());
  // "sent" is not final; "delivered" is, once.
  EXPECT_EQ(TwilioCallback(callback_url, sid, "sent", kAuthToken).status, 200);
  EXPECT_TRUE(Delivery(1, delivery["id"])["provider_status"].is_null());
  const auto delivered = TwilioCallback(callback_url, sid, "delivered", kAuthToken);
  EXPECT_EQ(delivered.status, 200) << delivered.body;
  EXPECT_EQ(ParseJsonOrDiscarded(delivered.body)["recorded"], true);
  EXPECT_EQ(Delivery(1, delivery["id"])["provider_status"], "delivered");
  // Twilio signs no time: a replayed callback is harmless, it records nothing.
  const auto again = TwilioCallback(callback_url, sid, "delivered", kAuthToken);
  EXPECT_EQ(ParseJsonOrDiscarded(again.body)["recorded"], false);
  EXPECT_EQ(playmobile_.request_count(), 0u);
}

TEST_F(SmsGatewaysBlackBox, WhileTwilioIsDownPlaymobileSendsEachMessageOnceAndReportsIt) {
  twilio_down_ = true;
  auto serve = Serve();
  std::vector<json> deliveries;
  for (int user = 1; user <= 3; ++user) deliveries.push_back(SendSms(user));
  for (const json& delivery : deliveries) {
    EXPECT_EQ(delivery["status"], "sent") << delivery.dump();
    EXPECT_EQ(delivery["provider"], "playmobile");
  }
  const auto requests = playmobile_.requests();
  ASSERT_EQ(requests.size(), 3u);
  std::map<std::int64_t, int> per_delivery;
  for (const auto& request : requests) ++per_delivery[request.delivery_id.value_or(0)];
  EXPECT_EQ(per_delivery.size(), 3u) << "each message once";
  const json body = ParseJsonOrDiscarded(requests[0].body);
  const json& message = body["messages"][0];
  EXPECT_EQ(message["sms"]["originator"], "ACME");
  EXPECT_EQ(message["message-id"], deliveries[0]["provider_message_id"]);

  // The delivery report, on the secret path only.
  const std::string report =
      json({{"messages",
             {{{"message-id", deliveries[0]["provider_message_id"]}, {"status", "Delivered"}}}}})
          .dump();
  EXPECT_EQ(api_->CallUnauthenticated("POST", "/v1/sms/playmobile/report/wrong", report,
                                      {"Content-Type: application/json"})
                .status,
            404);
  const auto recorded =
      api_->CallUnauthenticated("POST", std::string("/v1/sms/playmobile/report/") + kCallbackSecret,
                                report, {"Content-Type: application/json"});
  EXPECT_EQ(recorded.status, 200) << recorded.body;
  EXPECT_EQ(Delivery(1, deliveries[0]["id"])["provider_status"], "delivered");
}

}  // namespace
}  // namespace chopar
