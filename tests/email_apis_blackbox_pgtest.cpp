// Black-box, email through the services' HTTP APIs: the built `chopar
// serve` with [channels.email] provider = "ses" calling a fake SES v2 API
// on 127.0.0.1 that checks each call's SigV4 signature (recomputed from the
// headers the call says it signed, under the configured secret), and with
// provider = "mailgun" calling a fake Mailgun that checks its basic auth.
// A notification's email goes out as the SMTP path's MIME message; SES's
// throttling is retried after its Retry-After; a wrong secret fails the
// delivery with SES's answer.

#include <gtest/gtest.h>

#include <chrono>
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
#include "net/aws_sigv4.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "ses-key";
constexpr char kKeyId[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecret[] = "ses-test-secret-key";

class EmailApisBlackBox : public testing::DatabaseBlackBox {
 protected:
  std::map<std::string, std::string> Env(const std::string& secret) const {
    return DatabaseEnv(kApiKey, {{"CHOPAR_CHANNELS_EMAIL_PROVIDER", "ses"},
                                 {"CHOPAR_CHANNELS_EMAIL_FROM", "Acme <noreply@acme.example>"},
                                 {"CHOPAR_CHANNELS_EMAIL_SES_REGION", "eu-central-1"},
                                 {"CHOPAR_CHANNELS_EMAIL_SES_ACCESS_KEY_ID", kKeyId},
                                 {"CHOPAR_CHANNELS_EMAIL_SES_SECRET_ACCESS_KEY", secret},
                                 {"CHOPAR_CHANNELS_EMAIL_SES_ENDPOINT", ses_.url()}});
  }

  // SES: the signature checked, then throttled once for a recipient in
  // `throttled_`, else accepted with a MessageId.
  FakeHttpServer::Response Ses(const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    const std::string authorization = request.headers.count("authorization") != 0
                                          ? request.headers.at("authorization")
                                          : std::string();
    const auto signed_at = authorization.find("SignedHeaders=");
    const auto signature_at = authorization.find(", Signature=");
    if (request.target != "/v2/email/outbound-emails" || signed_at == std::string::npos ||
        signature_at == std::string::npos || request.headers.count("x-amz-date") == 0) {
      response.status = 403;
      response.headers["x-amzn-ErrorType"] = "IncompleteSignatureException";
      response.body = R"({"message": "bad request signature"})";
      return response;
    }
    net::SigV4Request again;
    again.method = request.method;
    again.path = request.target;
    again.body = request.body;
    std::string names = authorization.substr(signed_at + 14, signature_at - signed_at - 14) + ";";
    for (std::size_t start = 0, end; (end = names.find(';', start)) != std::string::npos;
         start = end + 1) {
      const std::string name = names.substr(start, end - start);
      again.headers.emplace_back(name, request.headers.count(name) ? request.headers.at(name) : "");
    }
    const std::string date = request.headers.at("x-amz-date");
    if (net::SignV4(again, {kKeyId, kSecret, ""}, {"eu-central-1", "ses"}, date).authorization !=
        authorization) {
      response.status = 403;
      response.headers["x-amzn-ErrorType"] = "SignatureDoesNotMatch";
      response.body = R"({"message": "The request signature we calculated does not match"})";
      return response;
    }
    const json body = ParseJsonOrDiscarded(request.body);
    const std::string to = body["Destination"]["ToAddresses"][0];
    std::lock_guard lock(mutex_);
    if (throttled_.erase(to) > 0) {
      response.status = 429;
      response.headers["x-amzn-ErrorType"] = "TooManyRequestsException";
      response.headers["Retry-After"] = "1";
      response.body = R"({"message": "Maximum sending rate exceeded."})";
      return response;
    }
    response.body = json({{"MessageId", "0107-ses-" + std::to_string(++accepted_)}}).dump();
    return response;
  }

  json Notify(Api& api, std::int64_t user) {
    const auto created = api.Call("POST", "/v1/notifications",
                                  {{"user_id", user},
                                   {"type", "task.due"},
                                   {"title", "Hisobot tayyor"},
                                   {"body", "Haftalik hisobot"},
                                   {"channels", {"email"}}});
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  }

  std::mutex mutex_;
  std::set<std::string> throttled_;
  int accepted_ = 0;
  FakeHttpServer ses_{[this](const FakeHttpServer::Request& r) { return Ses(r); }};
};

TEST_F(EmailApisBlackBox, SendsTheEmailThroughSesAndRetriesItsThrottling) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, Env(kSecret), "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_NE(serve->Output().find("email=ses"), std::string::npos) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "ali@example.uz"}}).status, 200);
  ASSERT_EQ(api.Call("PUT", "/v1/users/2", {{"email", "vali@example.uz"}}).status, 200);
  {
    std::lock_guard lock(mutex_);
    throttled_.insert("vali@example.uz");
  }

  json sent = SettledNotification(api, Notify(api, 1));
  EXPECT_EQ(DeliveryOn(sent, "email")["status"], "sent") << sent.dump();
  const auto requests = ses_.requests();
  ASSERT_FALSE(requests.empty());
  const json body = ParseJsonOrDiscarded(requests[0].body);
  EXPECT_EQ(body["FromEmailAddress"], "Acme <noreply@acme.example>");
  const auto mime = core::Base64Decode(body["Content"]["Raw"]["Data"].get<std::string>());
  ASSERT_TRUE(mime);
  EXPECT_NE(mime->find("To: ali@example.uz"), std::string::npos) << *mime;
  EXPECT_NE(mime->find("List-Unsubscribe:"), std::string::npos);
  const json items =
      ParseJsonOrDiscarded(api.Call("GET", "/v1/deliveries?user_id=1&channel=email").body)["items"];
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TRUE(items[0]["provider_message_id"].get<std::string>().starts_with("0107-ses-"));

  json throttled = SettledNotification(api, Notify(api, 2));
  EXPECT_EQ(DeliveryOn(throttled, "email")["status"], "sent") << throttled.dump();
  EXPECT_EQ(DeliveryOn(throttled, "email")["attempts"], 2) << throttled.dump();
}

TEST_F(EmailApisBlackBox, AWrongSecretFailsTheDeliveryWithSesAnswer) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, Env("not-the-secret"), "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "ali@example.uz"}}).status, 200);
  json failed = SettledNotification(api, Notify(api, 1));
  json delivery = DeliveryOn(failed, "email");
  EXPECT_EQ(delivery["status"], "failed") << failed.dump();
  EXPECT_NE(delivery["last_error"].get<std::string>().find("SignatureDoesNotMatch"),
            std::string::npos)
      << delivery.dump();
}

TEST_F(EmailApisBlackBox, MailgunSendsTheSameMimeMessageAsAFormFile) {
  FakeHttpServer mailgun([](const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    if (request.target != "/v3/mg.acme.example/messages.mime" ||
        request.headers.count("authorization") == 0 ||
        request.headers.at("authorization") != "Basic " + core::Base64Encode("api:key-test")) {
      response.status = 401;
      response.content_type = "text/plain";
      response.body = "Forbidden";
      return response;
    }
    response.body = R"({"id": "<20261206.7@mg.acme.example>", "message": "Queued. Thank you."})";
    return response;
  });
  const int port = FreeLoopbackPort();
  auto serve =
      Start("serve", port,
            DatabaseEnv(kApiKey, {{"CHOPAR_CHANNELS_EMAIL_PROVIDER", "mailgun"},
                                  {"CHOPAR_CHANNELS_EMAIL_FROM", "Acme <noreply@mg.acme.example>"},
                                  {"CHOPAR_CHANNELS_EMAIL_MAILGUN_DOMAIN", "mg.acme.example"},
                                  {"CHOPAR_CHANNELS_EMAIL_MAILGUN_API_KEY", "key-test"},
                                  {"CHOPAR_CHANNELS_EMAIL_MAILGUN_BASE_URL", mailgun.url()}}),
            "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_NE(serve->Output().find("email=mailgun"), std::string::npos) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "ali@example.uz"}}).status, 200);
  json sent = SettledNotification(api, Notify(api, 1));
  EXPECT_EQ(DeliveryOn(sent, "email")["status"], "sent") << sent.dump();
  const auto requests = mailgun.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_NE(requests[0].body.find("name=\"to\"\r\n\r\nali@example.uz\r\n"), std::string::npos)
      << requests[0].body;
  EXPECT_NE(requests[0].body.find("Content-Type: message/rfc822"), std::string::npos);
  EXPECT_NE(requests[0].body.find("List-Unsubscribe:"), std::string::npos);
  const json items =
      ParseJsonOrDiscarded(api.Call("GET", "/v1/deliveries?user_id=1&channel=email").body)["items"];
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0]["provider_message_id"], "<20261206.7@mg.acme.example>");
}

// Postmark and SendGrid through `chopar serve`: each fake checks its
// credential header and answers as the service does; the email's parts and
// unsubscribe header arrive, and the service's id is the delivery's.
TEST_F(EmailApisBlackBox, PostmarkAndSendGridSendTheComposedPartsAsJson) {
  struct Service {
    std::string provider;
    std::map<std::string, std::string> env;
    std::string credential_header;
    std::string credential;
    int status;
    std::string answer;
    std::string message_id;
  };
  for (const Service& service : std::vector<Service>{
           {"postmark",
            {{"CHOPAR_CHANNELS_EMAIL_POSTMARK_SERVER_TOKEN", "pm-token"}},
            "x-postmark-server-token",
            "pm-token",
            200,
            R"({"ErrorCode": 0, "Message": "OK", "MessageID": "pm-0001"})",
            "pm-0001"},
           {"sendgrid",
            {{"CHOPAR_CHANNELS_EMAIL_SENDGRID_API_KEY", "SG.key"}},
            "authorization",
            "Bearer SG.key",
            202,
            "",
            "sg-0001"},
       }) {
    SCOPED_TRACE(service.provider);
    const std::int64_t user = service.provider == "postmark" ? 1 : 2;
    FakeHttpServer fake([&](const FakeHttpServer::Request& request) {
      FakeHttpServer::Response response;
      const auto credential = request.headers.find(service.credential_header);
      if (credential == request.headers.end() || credential->second != service.credential) {
        response.status = 401;
        response.body = R"({"ErrorCode": 10, "Message": "bad credential"})";
        return response;
      }
      response.status = service.status;
      response.body = service.answer;
      response.headers["X-Message-Id"] = "sg-0001";
      return response;
    });
    std::map<std::string, std::string> env = service.env;
    env.emplace("CHOPAR_CHANNELS_EMAIL_PROVIDER", service.provider);
    env.emplace("CHOPAR_CHANNELS_EMAIL_FROM", "Acme <noreply@acme.example>");
    env.emplace("CHOPAR_CHANNELS_EMAIL_" +
                    std::string(service.provider == "postmark" ? "POSTMARK" : "SENDGRID") +
                    "_BASE_URL",
                fake.url());
    const int port = FreeLoopbackPort();
    auto serve = Start("serve", port, DatabaseEnv(kApiKey, env), service.provider + ".log");
    Api api(port, kApiKey);
    ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
    EXPECT_NE(serve->Output().find("email=" + service.provider), std::string::npos)
        << serve->Output();
    ASSERT_EQ(
        api.Call("PUT", "/v1/users/" + std::to_string(user), {{"email", "ali@example.uz"}}).status,
        200);
    json sent = SettledNotification(api, Notify(api, user));
    EXPECT_EQ(DeliveryOn(sent, "email")["status"], "sent") << sent.dump();
    const auto requests = fake.requests();
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_NE(requests[0].body.find("Hisobot tayyor"), std::string::npos) << requests[0].body;
    EXPECT_NE(requests[0].body.find("ali@example.uz"), std::string::npos);
    EXPECT_NE(requests[0].body.find("List-Unsubscribe"), std::string::npos);
    const json items = ParseJsonOrDiscarded(
        api.Call("GET", "/v1/deliveries?user_id=" + std::to_string(user) + "&channel=email")
            .body)["items"];
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0]["provider_message_id"], service.message_id);
    serve.reset();
  }
}

}  // namespace
}  // namespace chopar
