#include "channels/email/sendgrid.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/email/email_api_test_support.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::email {
namespace {

using chopar::testing::FakeHttpServer;
using nlohmann::json;
using testing::Mail;

constexpr char kKey[] = "SG.fake-key.for-tests";

// SendGrid as the fake answers it: the bearer key (401 otherwise), POST
// /v3/mail/send with a JSON body that has personalizations, from, subject
// and content (400 with its errors otherwise), then `answer`.
FakeHttpServer::Response SendGrid(
    const FakeHttpServer::Request& request,
    const std::function<FakeHttpServer::Response(const json&)>& answer) {
  FakeHttpServer::Response response;
  const auto auth = request.headers.find("authorization");
  if (auth == request.headers.end() || auth->second != std::string("Bearer ") + kKey) {
    response.status = 401;
    response.body =
        R"({"errors": [{"field": null, "message": "The provided authorization grant is invalid, expired, or revoked"}]})";
    return response;
  }
  const json body = json::parse(request.body, nullptr, false);
  if (request.target != "/v3/mail/send" || !body.is_object() ||
      !body.contains("personalizations") || !body.contains("from") || !body.contains("content")) {
    response.status = 400;
    response.body =
        R"({"errors": [{"field": "personalizations", "message": "The personalizations field is required"}]})";
    return response;
  }
  return answer(body);
}

FakeHttpServer::Response Accepted(const json&) {
  FakeHttpServer::Response response;
  response.status = 202;
  response.body = "";
  response.headers["X-Message-Id"] = "W3RmbHhQS0-SendGrid";
  return response;
}

EmailSettings Email() { return testing::ApiEmailSettings("Acme <noreply@acme.uz>"); }

TEST(SendGridTest, SendsTheSmtpPathsPartsWithTheUnsubscribeHeaders) {
  json received;
  FakeHttpServer sendgrid([&](const FakeHttpServer::Request& request) {
    return SendGrid(request, [&](const json& body) {
      received = body;
      return Accepted(body);
    });
  });
  const Outcome outcome = testing::SendAlone(Email(), SendGridApi(Email(), {kKey, sendgrid.url()}),
                                             Mail(42, "ali@example.uz"));
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "W3RmbHhQS0-SendGrid");
  EXPECT_EQ(received["personalizations"][0]["to"][0]["email"], "ali@example.uz");
  EXPECT_EQ(received["from"], json({{"email", "noreply@acme.uz"}, {"name", "Acme"}}));
  EXPECT_EQ(received["subject"], "Hisobot muddati yaqin");
  ASSERT_EQ(received["content"].size(), 2u);
  EXPECT_EQ(received["content"][0]["type"], "text/plain");
  EXPECT_EQ(received["content"][1]["type"], "text/html");
  EXPECT_NE(received["content"][1]["value"].get<std::string>().find("https://app.acme.uz/tasks/42"),
            std::string::npos);
  EXPECT_TRUE(received["headers"]["List-Unsubscribe"].get<std::string>().starts_with(
      "<https://app.acme.uz/v1/unsubscribe?"));
  EXPECT_EQ(received["headers"]["List-Unsubscribe-Post"], "List-Unsubscribe=One-Click");
  EXPECT_EQ(received["custom_args"]["chopar_delivery_id"], "42");
}

TEST(SendGridTest, MapsSendGridsAnswers) {
  struct Case {
    int status;
    std::string body;
    OutcomeKind kind;
    std::string detail;
  };
  for (
      const Case& c : std::vector<Case>{
          {403,
           R"({"errors": [{"field": "from", "message": "The from address does not match a verified Sender Identity."}]})",
           OutcomeKind::kPermanent,
           "sendgrid 403: The from address does not match a verified Sender Identity. (from) "
           "(check the SendGrid key and the sender identity)"},
          {413, R"({"errors": [{"field": null, "message": "too large"}]})", OutcomeKind::kPermanent,
           "sendgrid 413: too large"},
          {429, R"({"errors": [{"field": null, "message": "too many requests"}]})",
           OutcomeKind::kRetry, "sendgrid 429: too many requests"},
          {500, "", OutcomeKind::kRetry, "sendgrid 500"},
      }) {
    FakeHttpServer sendgrid([&](const FakeHttpServer::Request& request) {
      return SendGrid(request, [&](const json&) {
        FakeHttpServer::Response response;
        response.status = c.status;
        response.body = c.body;
        return response;
      });
    });
    const Outcome outcome = testing::SendAlone(
        Email(), SendGridApi(Email(), {kKey, sendgrid.url()}), Mail(1, "ali@example.uz"));
    EXPECT_EQ(outcome.kind, c.kind) << outcome.detail;
    EXPECT_EQ(outcome.detail, c.detail);
  }
  FakeHttpServer sendgrid(
      [](const FakeHttpServer::Request& request) { return SendGrid(request, Accepted); });
  const Outcome wrong_key = testing::SendAlone(
      Email(), SendGridApi(Email(), {"SG.wrong", sendgrid.url()}), Mail(1, "a@b.uz"));
  EXPECT_EQ(wrong_key.kind, OutcomeKind::kPermanent);
  EXPECT_NE(wrong_key.detail.find("sendgrid 401: The provided authorization grant is invalid"),
            std::string::npos)
      << wrong_key.detail;
}

TEST(SendGridTest, RefusesSettingsThatCannotWork) {
  EXPECT_THROW(SendGridApi(Email(), {"", "https://api.sendgrid.com"}), std::invalid_argument);
  EXPECT_THROW(SendGridApi(Email(), {kKey, "api.sendgrid.com"}), std::invalid_argument);
  EmailSettings bad_from = Email();
  bad_from.from = "nobody";
  EXPECT_THROW(SendGridApi(bad_from, {kKey, "https://api.sendgrid.com"}), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::channels::email
