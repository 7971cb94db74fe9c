#include "channels/email/mailgun.hpp"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/email/email_api_test_support.hpp"
#include "core/encoding.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::email {
namespace {

using namespace std::chrono_literals;
using chopar::testing::FakeHttpServer;
using testing::Mail;

constexpr char kKey[] = "key-3ax6xnjp29jd6fds4gc373sgvjxteol0";

// The parts of a multipart/form-data body by name (RFC 7578), or an empty
// map when it is not one with `boundary`.
std::map<std::string, std::string> FormParts(const std::string& body, const std::string& boundary) {
  std::map<std::string, std::string> parts;
  const std::string delimiter = "--" + boundary;
  std::size_t at = body.find(delimiter);
  while (at != std::string::npos) {
    const std::size_t start = at + delimiter.size();
    if (body.compare(start, 2, "--") == 0) return parts;
    const std::size_t headers_end = body.find("\r\n\r\n", start);
    const std::size_t next = body.find("\r\n" + delimiter, start);
    if (headers_end == std::string::npos || next == std::string::npos) return {};
    const std::string headers = body.substr(start, headers_end - start);
    const auto name_at = headers.find("name=\"");
    if (name_at == std::string::npos) return {};
    const std::string name =
        headers.substr(name_at + 6, headers.find('"', name_at + 6) - name_at - 6);
    parts[name] = body.substr(headers_end + 4, next - headers_end - 4);
    at = next + 2;
  }
  return {};
}

// Mailgun as the fake answers it: basic auth "api:<key>" (401 "Forbidden"
// otherwise, as Mailgun does), the domain's messages.mime path (404), a
// multipart form with `to` and `message` (400), then `answer`.
class FakeMailgun {
 public:
  using Answer = std::function<FakeHttpServer::Response(const std::map<std::string, std::string>&)>;
  explicit FakeMailgun(Answer answer) : answer_(std::move(answer)) {}
  [[nodiscard]] std::string url() const { return server_.url(); }
  [[nodiscard]] std::vector<FakeHttpServer::Request> requests() const { return server_.requests(); }

 private:
  static FakeHttpServer::Response Reply(int status, std::string body, bool json = true) {
    FakeHttpServer::Response response;
    response.status = status;
    response.body = std::move(body);
    if (!json) response.content_type = "text/plain";
    return response;
  }
  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    const auto auth = request.headers.find("authorization");
    if (auth == request.headers.end() ||
        auth->second != "Basic " + core::Base64Encode(std::string("api:") + kKey)) {
      return Reply(401, "Forbidden", false);
    }
    if (request.method != "POST" || request.target != "/v3/mg.acme.uz/messages.mime") {
      return Reply(404, R"({"message": "Domain not found: mg.other.uz"})");
    }
    const std::string type = request.headers.count("content-type") != 0
                                 ? request.headers.at("content-type")
                                 : std::string();
    const std::string prefix = "multipart/form-data; boundary=";
    const auto parts = type.starts_with(prefix)
                           ? FormParts(request.body, type.substr(prefix.size()))
                           : std::map<std::string, std::string>{};
    if (parts.count("to") == 0 || parts.count("message") == 0) {
      return Reply(400, R"({"message": "'to' parameter is missing"})");
    }
    return answer_(parts);
  }
  Answer answer_;
  FakeHttpServer server_{[this](const FakeHttpServer::Request& r) { return Handle(r); }};
};

FakeHttpServer::Response Queued(const std::map<std::string, std::string>&) {
  FakeHttpServer::Response response;
  response.body = R"({"id": "<20261206.1.ABC@mg.acme.uz>", "message": "Queued. Thank you."})";
  return response;
}

class MailgunChannelTest : public ::testing::Test {
 protected:
  EmailSettings Email() const { return testing::ApiEmailSettings("Acme <noreply@mg.acme.uz>"); }
  MailgunSettings Mailgun(const std::string& url, std::string key = kKey) const {
    return {"mg.acme.uz", std::move(key), url};
  }
  Outcome SendOne(const MailgunSettings& mailgun, const Message& m,
                  std::optional<EmailSettings> email = std::nullopt) {
    return testing::SendAlone(email.value_or(Email()), MailgunApi(mailgun), m);
  }
};

TEST_F(MailgunChannelTest, SendsTheSmtpPathsMimeMessageAsAFormFile) {
  std::map<std::string, std::string> received;
  FakeMailgun mailgun([&](const auto& parts) {
    received = parts;
    return Queued(parts);
  });
  const Outcome outcome = SendOne(Mailgun(mailgun.url()), Mail(42, "ali@example.uz"));
  ASSERT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "<20261206.1.ABC@mg.acme.uz>");
  EXPECT_EQ(received["to"], "ali@example.uz");
  const std::string& mime = received["message"];
  EXPECT_NE(mime.find("From: Acme <noreply@mg.acme.uz>\r\n"), std::string::npos) << mime;
  EXPECT_NE(mime.find("To: ali@example.uz\r\n"), std::string::npos);
  EXPECT_NE(mime.find("List-Unsubscribe: <https://app.acme.uz/v1/unsubscribe?"), std::string::npos);
  EXPECT_TRUE(mime.ends_with("--\r\n")) << "the whole MIME message, up to its closing boundary";
  EXPECT_EQ(mailgun.requests()[0].delivery_id, 42);
}

TEST_F(MailgunChannelTest, MapsMailgunsAnswers) {
  struct Case {
    int status;
    std::string body;
    std::string retry_after;
    OutcomeKind kind;
    std::string detail;
  };
  for (const Case& c : std::vector<Case>{
           {400, R"({"message": "'to' parameter is not a valid address"})", "",
            OutcomeKind::kPermanent, "mailgun 400: 'to' parameter is not a valid address"},
           {402, R"({"message": "Domain mg.acme.uz is disabled"})", "", OutcomeKind::kPermanent,
            "mailgun 402: Domain mg.acme.uz is disabled"},
           {429, R"({"message": "Too many requests"})", "4", OutcomeKind::kRetry,
            "mailgun 429: Too many requests"},
           {500, "Internal Server Error", "", OutcomeKind::kRetry,
            "mailgun 500: Internal Server Error"},
       }) {
    SCOPED_TRACE(c.status);
    FakeMailgun mailgun([&](const auto&) {
      FakeHttpServer::Response response;
      response.status = c.status;
      response.body = c.body;
      if (!c.retry_after.empty()) response.headers["Retry-After"] = c.retry_after;
      return response;
    });
    const Outcome outcome = SendOne(Mailgun(mailgun.url()), Mail(1, "ali@example.uz"));
    EXPECT_EQ(outcome.kind, c.kind) << outcome.detail;
    EXPECT_EQ(outcome.detail, c.detail);
    if (!c.retry_after.empty()) {
      EXPECT_EQ(outcome.retry_after, std::chrono::seconds(4));
    }
  }
}

TEST_F(MailgunChannelTest, AWrongKeyOrDomainIsRefusedByMailgunAndFails) {
  FakeMailgun mailgun(Queued);
  const Outcome wrong_key = SendOne(Mailgun(mailgun.url(), "key-wrong"), Mail(1, "ali@example.uz"));
  EXPECT_EQ(wrong_key.kind, OutcomeKind::kPermanent);
  EXPECT_EQ(wrong_key.detail, "mailgun 401: Forbidden (check the Mailgun key)");
  MailgunSettings other = Mailgun(mailgun.url());
  other.domain = "mg.other.uz";
  const Outcome wrong_domain = SendOne(other, Mail(1, "ali@example.uz"));
  EXPECT_EQ(wrong_domain.kind, OutcomeKind::kPermanent);
  EXPECT_EQ(wrong_domain.detail, "mailgun 404: Domain not found: mg.other.uz");
}

TEST_F(MailgunChannelTest, NoAnswerAfterTheRequestWasSentIsOutcomeUnknown) {
  FakeMailgun mailgun([](const auto& parts) {
    FakeHttpServer::Response response = Queued(parts);
    response.delay = 3s;
    return response;
  });
  EmailSettings email = Email();
  email.timeout = 1s;
  EXPECT_EQ(SendOne(Mailgun(mailgun.url()), Mail(1, "ali@example.uz"), email).kind,
            OutcomeKind::kUnknown);
  EXPECT_EQ(mailgun.requests().size(), 1u);
}

TEST_F(MailgunChannelTest, RefusesSettingsThatCannotWork) {
  EXPECT_THROW(MailgunApi({"", kKey, "https://api.mailgun.net"}), std::invalid_argument);
  EXPECT_THROW(MailgunApi({"mg acme", kKey, "https://api.mailgun.net"}), std::invalid_argument);
  EXPECT_THROW(MailgunApi({"mg.acme.uz", "", "https://api.mailgun.net"}), std::invalid_argument);
  EXPECT_THROW(MailgunApi({"mg.acme.uz", kKey, "api.mailgun.net"}), std::invalid_argument);
  EXPECT_NO_THROW(MailgunApi({"mg.acme.uz", kKey, "https://api.eu.mailgun.net/"}));
}

TEST(MailgunFormTest, IsAMultipartFormWithTheMessageAsAFile) {
  EXPECT_EQ(MailgunMimeForm("a@b.uz", "Subject: x\r\n\r\nhi\r\n", "B"),
            "--B\r\nContent-Disposition: form-data; name=\"to\"\r\n\r\na@b.uz\r\n"
            "--B\r\nContent-Disposition: form-data; name=\"message\"; filename=\"message.eml\"\r\n"
            "Content-Type: message/rfc822\r\n\r\nSubject: x\r\n\r\nhi\r\n\r\n--B--\r\n");
}

}  // namespace
}  // namespace chopar::channels::email
