#include "channels/email/postmark.hpp"

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

constexpr char kToken[] = "b7a1c2d3-postmark-server-token";

// Postmark as the fake answers it: the server token (401 with ErrorCode 10
// otherwise), POST /email with JSON, then `answer`.
FakeHttpServer::Response Postmark(
    const FakeHttpServer::Request& request,
    const std::function<FakeHttpServer::Response(const json&)>& answer) {
  FakeHttpServer::Response response;
  const auto token = request.headers.find("x-postmark-server-token");
  if (token == request.headers.end() || token->second != kToken) {
    response.status = 401;
    response.body =
        R"({"ErrorCode": 10, "Message": "The Server Token you provided in the X-Postmark-Server-Token request header was invalid."})";
    return response;
  }
  const json body = json::parse(request.body, nullptr, false);
  if (request.target != "/email" || !body.is_object()) {
    response.status = 422;
    response.body = R"({"ErrorCode": 300, "Message": "Invalid email request"})";
    return response;
  }
  return answer(body);
}

FakeHttpServer::Response Accepted(const json& body) {
  FakeHttpServer::Response response;
  response.body = json({{"To", body["To"]},
                        {"SubmittedAt", "2026-12-06T12:00:00Z"},
                        {"MessageID", "b7bc2f4a-e38e-4336-af7d-e6c392c2f817"},
                        {"ErrorCode", 0},
                        {"Message", "OK"}})
                      .dump();
  return response;
}

EmailSettings Email() { return testing::ApiEmailSettings("Acme <noreply@acme.uz>"); }

TEST(PostmarkTest, SendsTheSmtpPathsPartsWithTheUnsubscribeHeaders) {
  json received;
  FakeHttpServer postmark([&](const FakeHttpServer::Request& request) {
    return Postmark(request, [&](const json& body) {
      received = body;
      return Accepted(body);
    });
  });
  const Outcome outcome =
      testing::SendAlone(Email(), PostmarkApi(Email(), {kToken, "outbound", postmark.url()}),
                         Mail(42, "ali@example.uz"));
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "b7bc2f4a-e38e-4336-af7d-e6c392c2f817");
  EXPECT_EQ(received["From"], "Acme <noreply@acme.uz>");
  EXPECT_EQ(received["To"], "ali@example.uz");
  EXPECT_EQ(received["Subject"], "Hisobot muddati yaqin");
  EXPECT_NE(received["TextBody"].get<std::string>().find("Hisobotni juma kuni"), std::string::npos);
  EXPECT_NE(received["HtmlBody"].get<std::string>().find("https://app.acme.uz/tasks/42"),
            std::string::npos);
  EXPECT_EQ(received["MessageStream"], "outbound");
  EXPECT_EQ(received["Metadata"]["chopar_delivery_id"], "42");
  ASSERT_EQ(received["Headers"].size(), 2u) << received.dump();
  EXPECT_EQ(received["Headers"][0]["Name"], "List-Unsubscribe");
  EXPECT_TRUE(received["Headers"][0]["Value"].get<std::string>().starts_with(
      "<https://app.acme.uz/v1/unsubscribe?"));
  EXPECT_EQ(received["Headers"][1]["Value"], "List-Unsubscribe=One-Click");
}

// A notification of a tenant with branding: its sender name is the From's
// name (the address stays the configured one), its layout in the HTML.
TEST(PostmarkTest, ATenantsBrandingNamesTheSenderAndShapesTheHtml) {
  json received;
  FakeHttpServer postmark([&](const FakeHttpServer::Request& request) {
    return Postmark(request, [&](const json& body) {
      received = body;
      return Accepted(body);
    });
  });
  Message m = Mail(43, "ali@example.uz");
  ApplyChannelTexts(m, {{"branding",
                         {{"sender_name", "Globex Support"},
                          {"primary_color", "#00aa55"},
                          {"footer", "Globex LLC"}}}});
  const Outcome outcome =
      testing::SendAlone(Email(), PostmarkApi(Email(), {kToken, "outbound", postmark.url()}), m);
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(received["From"], "Globex Support <noreply@acme.uz>");
  const std::string html = received["HtmlBody"];
  EXPECT_NE(html.find("background:#00aa55"), std::string::npos) << html;
  EXPECT_NE(html.find("Globex LLC"), std::string::npos) << html;
}

TEST(PostmarkTest, MapsPostmarksAnswers) {
  struct Case {
    int status;
    std::string body;
    OutcomeKind kind;
    std::string detail;
  };
  for (
      const Case& c : std::vector<Case>{
          {422,
           R"({"ErrorCode": 406, "Message": "You tried to send to a recipient that has been marked as inactive."})",
           OutcomeKind::kPermanent,
           "postmark 422 code 406: You tried to send to a recipient that has been marked as "
           "inactive."},
          {429, R"({"ErrorCode": 429, "Message": "Rate limit exceeded"})", OutcomeKind::kRetry,
           "postmark 429 code 429: Rate limit exceeded"},
          {503, "Service Unavailable", OutcomeKind::kRetry, "postmark 503: Service Unavailable"},
      }) {
    FakeHttpServer postmark([&](const FakeHttpServer::Request& request) {
      return Postmark(request, [&](const json&) {
        FakeHttpServer::Response response;
        response.status = c.status;
        response.body = c.body;
        return response;
      });
    });
    const Outcome outcome =
        testing::SendAlone(Email(), PostmarkApi(Email(), {kToken, "outbound", postmark.url()}),
                           Mail(1, "ali@example.uz"));
    EXPECT_EQ(outcome.kind, c.kind) << outcome.detail;
    EXPECT_EQ(outcome.detail, c.detail);
  }
  FakeHttpServer postmark(
      [](const FakeHttpServer::Request& request) { return Postmark(request, Accepted); });
  const Outcome wrong_token = testing::SendAlone(
      Email(), PostmarkApi(Email(), {"wrong", "outbound", postmark.url()}), Mail(1, "a@b.uz"));
  EXPECT_EQ(wrong_token.kind, OutcomeKind::kPermanent);
  EXPECT_NE(wrong_token.detail.find("check the Postmark token"), std::string::npos)
      << wrong_token.detail;
}

TEST(PostmarkTest, RefusesSettingsThatCannotWork) {
  EXPECT_THROW(PostmarkApi(Email(), {"", "outbound", "https://api.postmarkapp.com"}),
               std::invalid_argument);
  EXPECT_THROW(PostmarkApi(Email(), {kToken, "", "https://api.postmarkapp.com"}),
               std::invalid_argument);
  EXPECT_THROW(PostmarkApi(Email(), {kToken, "outbound", "api.postmarkapp.com"}),
               std::invalid_argument);
  EmailSettings bad_from = Email();
  bad_from.from = "nobody";
  EXPECT_THROW(PostmarkApi(bad_from, {kToken, "outbound", "https://api.postmarkapp.com"}),
               std::invalid_argument);
}

}  // namespace
}  // namespace chopar::channels::email
