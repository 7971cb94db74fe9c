#include "channels/email/ses.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/email/email_api_test_support.hpp"
#include "core/encoding.hpp"
#include "net/aws_sigv4.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::email {
namespace {

using namespace std::chrono_literals;
using chopar::testing::FakeHttpServer;
using nlohmann::json;
using testing::Mail;

constexpr char kKeyId[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

// What the fake SES checks of a SendEmail call, as SES does: the path, a
// SigV4 Authorization for region eu-central-1 and service ses whose
// signature is the one the request's own signed headers and body give
// under the secret, and a JSON body. An answer to each check that fails
// is SES's 403 / 400.
class FakeSes {
 public:
  using Answer = std::function<FakeHttpServer::Response(const json& body)>;

  explicit FakeSes(Answer answer) : answer_(std::move(answer)) {}

  [[nodiscard]] std::string url() const { return server_.url(); }
  [[nodiscard]] std::vector<FakeHttpServer::Request> requests() const { return server_.requests(); }

 private:
  static FakeHttpServer::Response Error(int status, const std::string& type,
                                        const std::string& message) {
    FakeHttpServer::Response response;
    response.status = status;
    response.headers["x-amzn-ErrorType"] = type + ":http://internal.amazon.com/coral/";
    response.body = json({{"message", message}}).dump();
    return response;
  }

  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    if (request.method != "POST" || request.target != "/v2/email/outbound-emails") {
      return Error(404, "NotFoundException", "no such resource");
    }
    const auto auth = request.headers.find("authorization");
    const auto date = request.headers.find("x-amz-date");
    if (auth == request.headers.end() || date == request.headers.end()) {
      return Error(403, "MissingAuthenticationTokenException", "Missing Authentication Token");
    }
    const std::string& authorization = auth->second;
    const std::string prefix = std::string("AWS4-HMAC-SHA256 Credential=") + kKeyId + "/" +
                               date->second.substr(0, 8) + "/eu-central-1/ses/aws4_request, ";
    const auto signed_at = authorization.find("SignedHeaders=");
    const auto signature_at = authorization.find(", Signature=");
    if (!authorization.starts_with(prefix) || signed_at == std::string::npos ||
        signature_at == std::string::npos) {
      return Error(403, "IncompleteSignatureException", "bad Authorization");
    }
    net::SigV4Request again;
    again.method = request.method;
    again.path = request.target;
    again.body = request.body;
    const std::string names = authorization.substr(signed_at + 14, signature_at - signed_at - 14);
    std::size_t start = 0;
    while (start <= names.size()) {
      const std::size_t end = std::min(names.find(';', start), names.size());
      const std::string name = names.substr(start, end - start);
      const auto header = request.headers.find(name);
      if (header == request.headers.end()) {
        return Error(403, "SignatureDoesNotMatch", "signed header " + name + " not sent");
      }
      again.headers.emplace_back(name, header->second);
      start = end + 1;
    }
    const std::string expected =
        net::SignV4(again, {kKeyId, kSecret, ""}, {"eu-central-1", "ses"}, date->second)
            .authorization;
    if (expected != authorization) {
      return Error(403, "SignatureDoesNotMatch",
                   "The request signature we calculated does not match the signature you "
                   "provided.");
    }
    const json body = json::parse(request.body, nullptr, false);
    if (!body.is_object() || !body.contains("Content")) {
      return Error(400, "BadRequestException", "Content is required");
    }
    return answer_(body);
  }

  Answer answer_;
  FakeHttpServer server_{[this](const FakeHttpServer::Request& r) { return Handle(r); }};
};

FakeHttpServer::Response Accepted(const json&) {
  FakeHttpServer::Response response;
  response.body = R"({"MessageId": "0107018f-ses-message-id"})";
  return response;
}

class SesChannelTest : public ::testing::Test {
 protected:
  EmailSettings Email() const {
    return testing::ApiEmailSettings("Choʻpar <noreply@chopar.example.uz>");
  }
  SesSettings Ses(const std::string& url, std::string secret = kSecret) const {
    return {"eu-central-1", kKeyId, std::move(secret), "", url};
  }
  std::vector<Outcome> SendOne(FakeSes& ses, const Message& m, std::string secret = kSecret,
                               std::optional<EmailSettings> email = std::nullopt) {
    const EmailSettings settings = email.value_or(Email());
    return {testing::SendAlone(settings, SesApi(settings, Ses(ses.url(), std::move(secret))), m)};
  }

  net::HttpClient http_;
  core::SimulatedClock clock_{core::TimePoint{std::chrono::seconds(1748944800)}};
};

TEST_F(SesChannelTest, SendsTheSmtpPathsMimeMessageAsRawContentSignedWithSigV4) {
  json received;
  FakeSes ses([&](const json& body) {
    received = body;
    return Accepted(body);
  });
  const auto outcomes = SendOne(ses, Mail(42, "ali@example.uz"));
  ASSERT_EQ(outcomes[0].kind, OutcomeKind::kSent) << outcomes[0].detail;
  EXPECT_EQ(outcomes[0].provider_message_id, "0107018f-ses-message-id");
  EXPECT_EQ(received["FromEmailAddress"], "Choʻpar <noreply@chopar.example.uz>");
  EXPECT_EQ(received["Destination"]["ToAddresses"], json({"ali@example.uz"}));
  const auto mime = core::Base64Decode(received["Content"]["Raw"]["Data"].get<std::string>());
  ASSERT_TRUE(mime);
  EXPECT_NE(mime->find("To: ali@example.uz\r\n"), std::string::npos) << *mime;
  EXPECT_NE(mime->find("Subject: "), std::string::npos);
  EXPECT_NE(mime->find("List-Unsubscribe: <https://app.acme.uz/v1/unsubscribe?"),
            std::string::npos);
  EXPECT_NE(mime->find("List-Unsubscribe-Post: List-Unsubscribe=One-Click"), std::string::npos);
  EXPECT_NE(mime->find("multipart/alternative"), std::string::npos);
  const auto requests = ses.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].delivery_id, 42);
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
}

TEST_F(SesChannelTest, AWrongSecretIsRefusedBySesAndFailsTheDelivery) {
  FakeSes ses(Accepted);
  const auto outcomes = SendOne(ses, Mail(1, "ali@example.uz"), "not-the-secret");
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcomes[0].detail.find("403 SignatureDoesNotMatch"), std::string::npos)
      << outcomes[0].detail;
  EXPECT_NE(outcomes[0].detail.find("check the SES credentials"), std::string::npos);
}

TEST_F(SesChannelTest, MapsSesErrorsToRetryOrFailure) {
  struct Case {
    int status;
    std::string type;
    std::string retry_after;
    OutcomeKind kind;
  };
  for (const Case& c : std::vector<Case>{
           {400, "MessageRejected", "", OutcomeKind::kPermanent},
           {400, "MailFromDomainNotVerifiedException", "", OutcomeKind::kPermanent},
           {400, "AccountSuspendedException", "", OutcomeKind::kPermanent},
           {400, "LimitExceededException", "", OutcomeKind::kRetry},
           {429, "TooManyRequestsException", "3", OutcomeKind::kRetry},
           {500, "InternalFailure", "", OutcomeKind::kRetry},
           {503, "ServiceUnavailable", "", OutcomeKind::kRetry},
       }) {
    SCOPED_TRACE(c.type);
    FakeSes ses([&](const json&) {
      FakeHttpServer::Response response;
      response.status = c.status;
      response.headers["x-amzn-ErrorType"] = c.type;
      if (!c.retry_after.empty()) response.headers["Retry-After"] = c.retry_after;
      response.body = json({{"message", "Email address is not verified."}}).dump();
      return response;
    });
    const auto outcomes = SendOne(ses, Mail(1, "ali@example.uz"));
    EXPECT_EQ(outcomes[0].kind, c.kind) << outcomes[0].detail;
    EXPECT_NE(outcomes[0].detail.find(c.type), std::string::npos) << outcomes[0].detail;
    if (!c.retry_after.empty()) {
      EXPECT_EQ(outcomes[0].retry_after, std::chrono::seconds(3));
    }
  }
}

TEST_F(SesChannelTest, NoAnswerAfterTheRequestWasSentIsOutcomeUnknownNeverRetried) {
  FakeSes ses([](const json& body) {
    FakeHttpServer::Response response = Accepted(body);
    response.delay = 3s;
    return response;
  });
  EmailSettings email = Email();
  email.timeout = 1s;
  const auto outcomes = SendOne(ses, Mail(1, "ali@example.uz"), kSecret, email);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kUnknown) << outcomes[0].detail;
  EXPECT_EQ(ses.requests().size(), 1u);
}

TEST_F(SesChannelTest, ABadAddressIsNotSentAndBadSettingsAreRefused) {
  FakeSes ses(Accepted);
  EXPECT_EQ(SendOne(ses, Mail(1, "not an address"))[0].kind, OutcomeKind::kPermanent);
  EXPECT_TRUE(ses.requests().empty());
  SesSettings no_region = Ses(ses.url());
  no_region.region.clear();
  EXPECT_THROW(SesApi(Email(), no_region), std::invalid_argument);
  SesSettings no_key = Ses(ses.url());
  no_key.secret_access_key.clear();
  EXPECT_THROW(SesApi(Email(), no_key), std::invalid_argument);
  EmailSettings bad_from = Email();
  bad_from.from = "nobody";
  EXPECT_THROW(HttpEmailChannel(bad_from, SesApi(bad_from, Ses(ses.url())), http_, clock_),
               std::invalid_argument);
  SesSettings ftp = Ses("ftp://ses.example");
  EXPECT_THROW(SesApi(Email(), ftp), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::channels::email
