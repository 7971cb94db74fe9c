#include "channels/sms/playmobile.hpp"

#include <gtest/gtest.h>

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

constexpr char kLogin[] = "acme";
constexpr char kPassword[] = "playmobile-password";

FakeHttpServer::Response PlaymobileError(int status, int code, const std::string& description) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = json({{"error-code", code}, {"error-description", description}}).dump();
  return response;
}

FakeHttpServer::Response Plain(int status, const std::string& body) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = body;
  response.content_type = "text/plain";
  return response;
}

// Playmobile as the fake answers it: POST /broker-api/send with basic auth
// (a bare 401 otherwise, as its web server answers) and JSON, then `answer`.
FakeHttpServer::Response Playmobile(
    const FakeHttpServer::Request& request,
    const std::function<FakeHttpServer::Response(const json&)>& answer) {
  const auto auth = request.headers.find("authorization");
  if (auth == request.headers.end() ||
      auth->second != "Basic " + core::Base64Encode(std::string(kLogin) + ":" + kPassword)) {
    return Plain(401, "");
  }
  if (request.method != "POST" || request.target != "/broker-api/send") return Plain(404, "");
  const json body = json::parse(request.body, nullptr, false);
  if (!body.is_object() || !body.contains("messages")) {
    return PlaymobileError(400, 101, "Syntax error");
  }
  return answer(body);
}

FakeHttpServer::Response Received(const json&) { return Plain(200, "Request is received"); }

PlaymobileSettings Settings(const std::string& base_url) {
  PlaymobileSettings s;
  s.base_url = base_url;
  s.login = kLogin;
  s.password = kPassword;
  s.timeout = 5s;
  return s;
}

TEST(PlaymobileTest, SendsTheBrokerMessageWithBasicAuthAndTheDeliveryHeader) {
  json received;
  FakeHttpServer playmobile([&](const FakeHttpServer::Request& request) {
    return Playmobile(request, [&](const json& body) {
      received = body;
      return Received(body);
    });
  });
  const Outcome outcome = testing::SendAlone(PlaymobileApi(Settings(playmobile.url() + "/")),
                                             Sms(42, "+998 90 123-45-67"));
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  // Attempt 2 of delivery 42: the name chopar gave it is how reports find it.
  EXPECT_EQ(outcome.provider_message_id, "chopar42a2");
  const json expected = {
      {"messages",
       {{{"recipient", "998901234567"},
         {"message-id", "chopar42a2"},
         {"sms", {{"originator", "3700"}, {"content", {{"text", testing::kSmsText}}}}}}}}};
  EXPECT_EQ(received, expected) << received.dump();
  const auto requests = playmobile.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].delivery_id, 42);
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json; charset=utf-8");
}

TEST(PlaymobileTest, AnEmptySuccessIsSentToo) {
  FakeHttpServer playmobile([](const FakeHttpServer::Request& request) {
    return Playmobile(request, [](const json&) { return Plain(200, ""); });
  });
  const Outcome outcome =
      testing::SendAlone(PlaymobileApi(Settings(playmobile.url())), Sms(7, "+998901234567"));
  EXPECT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "chopar7a2");
}

// The fake Playmobile, answering `answer` to every call that passes its checks.
FakeHttpServer::Response PlaymobileAnswering(const FakeHttpServer::Request& request,
                                             const FakeHttpServer::Response& answer) {
  return Playmobile(request, [&](const json&) { return answer; });
}

SmsApi ApiAt(const std::string& base_url) { return PlaymobileApi(Settings(base_url)); }

TEST(PlaymobileTest, MapsPlaymobileAnswersToWhatTheWorkerDoesNext) {
  FakeHttpServer::Response busy = Plain(429, "Too Many Requests");
  busy.headers["Retry-After"] = "12";
  testing::ExpectOutcomes(
      ApiAt, PlaymobileAnswering,
      {
          {PlaymobileError(400, 202, "Empty recipient"), OutcomeKind::kPermanent,
           "playmobile 400 code 202: Empty recipient"},
          {PlaymobileError(400, 406, "Invalid content"), OutcomeKind::kPermanent,
           "playmobile 400 code 406: Invalid content"},
          {PlaymobileError(400, 102, "Account lock"), OutcomeKind::kPermanent,
           "playmobile 400 code 102: Account lock (check the Playmobile account)"},
          {PlaymobileError(400, 100, "Internal server error"), OutcomeKind::kRetry,
           "playmobile 400 code 100: Internal server error"},
          {busy, OutcomeKind::kRetry, "playmobile 429: Too Many Requests", 12s},
          {Plain(502, "Bad Gateway"), OutcomeKind::kRetry, "playmobile 502: Bad Gateway"},
          {Plain(504, ""), OutcomeKind::kRetry, "playmobile 504"},
      });
}

TEST(PlaymobileTest, AWrongLoginFailsWithAHint) {
  FakeHttpServer playmobile(
      [](const FakeHttpServer::Request& request) { return Playmobile(request, Received); });
  PlaymobileSettings settings = Settings(playmobile.url());
  settings.password = "wrong";
  const Outcome outcome = testing::SendAlone(PlaymobileApi(settings), Sms(1, "+998901234567"));
  EXPECT_EQ(outcome.kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcome.detail, "playmobile 401 (check the Playmobile login)");
}

TEST(PlaymobileTest, NoAnswerAfterTheRequestWasSentIsOutcomeUnknownNeverRetry) {
  testing::ExpectNoAnswerIsOutcomeUnknown(ApiAt, "playmobile");
}

TEST(PlaymobileTest, ARefusedConnectionRetries) {
  testing::ExpectARefusedConnectionRetries(ApiAt, "playmobile");
}

TEST(PlaymobileTest, NoPhoneNumberFailsWithoutACall) {
  testing::ExpectNoPhoneNumberFailsWithoutACall(ApiAt, PlaymobileAnswering,
                                                Plain(200, "Request is received"), "playmobile");
}

TEST(PlaymobileTest, RefusesSettingsThatCannotWork) {
  testing::ExpectEachSpoiledSettingsRefused<PlaymobileSettings>(
      Settings("https://send.smsxabar.uz"), PlaymobileApi,
      {
          [](PlaymobileSettings& s) { s.login.clear(); },
          [](PlaymobileSettings& s) { s.password.clear(); },
          [](PlaymobileSettings& s) { s.originator.clear(); },
          [](PlaymobileSettings& s) { s.base_url = "send.smsxabar.uz"; },
      });
}

}  // namespace
}  // namespace chopar::channels::sms
