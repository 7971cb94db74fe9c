#include "channels/sms/twilio.hpp"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "channels/sms/sms_api_test_support.hpp"
#include "core/encoding.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::sms {
namespace {

using namespace std::chrono_literals;
using chopar::testing::FakeHttpServer;
using nlohmann::json;
using testing::Sms;

constexpr char kSid[] = "AC0123456789abcdef0123456789abcdef";
constexpr char kToken[] = "twilio-auth-token-secret";
constexpr char kPath[] = "/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Messages.json";

using Form = std::map<std::string, std::string>;

FakeHttpServer::Response TwilioError(int status, int code, const std::string& message) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = json({{"code", code},
                        {"message", message},
                        {"more_info", "https://www.twilio.com/docs/errors/" + std::to_string(code)},
                        {"status", status}})
                      .dump();
  return response;
}

// Twilio as the fake answers it: POST to the account's Messages.json with
// basic auth (401 code 20003 otherwise) and a form, then `answer`.
FakeHttpServer::Response Twilio(
    const FakeHttpServer::Request& request,
    const std::function<FakeHttpServer::Response(const Form&)>& answer) {
  const auto auth = request.headers.find("authorization");
  if (auth == request.headers.end() ||
      auth->second != "Basic " + core::Base64Encode(std::string(kSid) + ":" + kToken)) {
    return TwilioError(401, 20003, "Authenticate");
  }
  if (request.method != "POST" || request.target != kPath) {
    return TwilioError(404, 20404, "The requested resource was not found");
  }
  const auto pairs = core::DecodeFormPairs(request.body, core::MalformedEscapes::kRefuse);
  if (!pairs) return TwilioError(400, 21100, "Malformed form");
  Form form;
  for (const auto& [name, value] : *pairs) form.emplace(name, value);
  return answer(form);
}

FakeHttpServer::Response Created(const Form& form) {
  FakeHttpServer::Response response;
  response.status = 201;
  response.body = json({{"sid", "SM" + std::string(32, 'a')},
                        {"status", "queued"},
                        {"to", form.at("To")},
                        {"body", form.at("Body")}})
                      .dump();
  return response;
}

TwilioSettings Settings(const std::string& base_url) {
  TwilioSettings s;
  s.account_sid = kSid;
  s.auth_token = kToken;
  s.from = "+15017122661";
  s.base_url = base_url;
  s.status_callback_url = "https://app.acme.uz/v1/sms/twilio/status";
  s.timeout = 5s;
  return s;
}

FakeHttpServer::Response Answer(int status, const std::string& body) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = body;
  return response;
}

TEST(TwilioTest, SendsTheMessageFormWithBasicAuthAndTheDeliveryHeader) {
  Form received;
  FakeHttpServer twilio([&](const FakeHttpServer::Request& request) {
    return Twilio(request, [&](const Form& form) {
      received = form;
      return Created(form);
    });
  });
  const Outcome outcome =
      testing::SendAlone(TwilioApi(Settings(twilio.url())), Sms(42, "+998 90 123-45-67"));
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "SM" + std::string(32, 'a'));
  EXPECT_EQ(received, (Form{{"To", "+998901234567"},
                            {"From", "+15017122661"},
                            {"Body", testing::kSmsText},
                            {"StatusCallback", "https://app.acme.uz/v1/sms/twilio/status"}}));
  const auto requests = twilio.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].delivery_id, 42);
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/x-www-form-urlencoded");
}

TEST(TwilioTest, AMessagingServiceStandsInForFromAndNoCallbackIsAsked) {
  Form received;
  FakeHttpServer twilio([&](const FakeHttpServer::Request& request) {
    return Twilio(request, [&](const Form& form) {
      received = form;
      return Created(form);
    });
  });
  TwilioSettings settings = Settings(twilio.url());
  settings.from.clear();
  settings.messaging_service_sid = "MG0123456789abcdef0123456789abcdef";
  settings.status_callback_url.clear();
  ASSERT_EQ(testing::SendAlone(TwilioApi(settings), Sms(1, "+998901234567")).kind,
            OutcomeKind::kSent);
  EXPECT_EQ(received, (Form{{"To", "+998901234567"},
                            {"MessagingServiceSid", "MG0123456789abcdef0123456789abcdef"},
                            {"Body", testing::kSmsText}}));
}

// The fake Twilio, answering `answer` to every call that passes its checks.
FakeHttpServer::Response TwilioAnswering(const FakeHttpServer::Request& request,
                                         const FakeHttpServer::Response& answer) {
  return Twilio(request, [&](const Form&) { return answer; });
}

SmsApi ApiAt(const std::string& base_url) { return TwilioApi(Settings(base_url)); }

TEST(TwilioTest, MapsTwilioAnswersToWhatTheWorkerDoesNext) {
  FakeHttpServer::Response busy = TwilioError(429, 20429, "Too Many Requests");
  busy.headers["Retry-After"] = "7";
  testing::ExpectOutcomes(
      ApiAt, TwilioAnswering,
      {
          {TwilioError(400, 21211, "The 'To' number +99890 is not a valid phone number."),
           OutcomeKind::kAddressGone,
           "twilio 400 code 21211: The 'To' number +99890 is not a valid phone number."},
          {TwilioError(400, 21614, "'To' number is not a valid mobile number"),
           OutcomeKind::kAddressGone,
           "twilio 400 code 21614: 'To' number is not a valid mobile number"},
          {TwilioError(400, 21610, "Attempt to send to unsubscribed recipient"),
           OutcomeKind::kAddressGone,
           "twilio 400 code 21610: Attempt to send to unsubscribed recipient"},
          {TwilioError(400, 21408, "Permission to send an SMS has not been enabled for the region"),
           OutcomeKind::kPermanent,
           "twilio 400 code 21408: Permission to send an SMS has not been enabled for the region"},
          {TwilioError(400, 21602, "Message body is required."), OutcomeKind::kPermanent,
           "twilio 400 code 21602: Message body is required."},
          {busy, OutcomeKind::kRetry, "twilio 429 code 20429: Too Many Requests", 7s},
          {TwilioError(500, 20500, "An internal server error has occurred"), OutcomeKind::kRetry,
           "twilio 500 code 20500: An internal server error has occurred"},
          {Answer(503, "Service Unavailable"), OutcomeKind::kRetry,
           "twilio 503: Service Unavailable"},
      });
}

TEST(TwilioTest, WrongCredentialsFailWithAHint) {
  FakeHttpServer twilio(
      [](const FakeHttpServer::Request& request) { return Twilio(request, Created); });
  TwilioSettings settings = Settings(twilio.url());
  settings.auth_token = "not-the-token";
  const Outcome outcome = testing::SendAlone(TwilioApi(settings), Sms(1, "+998901234567"));
  EXPECT_EQ(outcome.kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcome.detail, "twilio 401 code 20003: Authenticate (check the Twilio credentials)");
}

TEST(TwilioTest, NoAnswerAfterTheRequestWasSentIsOutcomeUnknownNeverRetry) {
  testing::ExpectNoAnswerIsOutcomeUnknown(ApiAt, "twilio");
}

TEST(TwilioTest, ARefusedConnectionRetries) {
  testing::ExpectARefusedConnectionRetries(ApiAt, "twilio");
}

TEST(TwilioTest, NoPhoneNumberFailsWithoutACall) {
  FakeHttpServer::Response created;
  created.status = 201;
  created.body = R"({"sid": "SM1", "status": "queued"})";
  testing::ExpectNoPhoneNumberFailsWithoutACall(ApiAt, TwilioAnswering, created, "twilio");
}

TEST(TwilioTest, RefusesSettingsThatCannotWork) {
  testing::ExpectEachSpoiledSettingsRefused<TwilioSettings>(
      Settings("https://api.twilio.com"), TwilioApi,
      {
          [](TwilioSettings& s) { s.account_sid.clear(); },
          [](TwilioSettings& s) { s.auth_token.clear(); },
          [](TwilioSettings& s) { s.from.clear(); },
          [](TwilioSettings& s) { s.base_url = "api.twilio.com"; },
      });
}

}  // namespace
}  // namespace chopar::channels::sms
