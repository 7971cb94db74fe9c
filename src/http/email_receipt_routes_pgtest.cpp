// The email providers' receipt webhooks (docs/api.md "Email receipts")
// against the in-process server on a real PostgreSQL: for each of SES (an
// SNS notification signed with a test certificate the route is given in
// place of Amazon's), SendGrid (ECDSA), Mailgun (HMAC) and Postmark (basic
// auth), a hard bounce marks its delivery bounced and suppresses the
// address; a forged or stale webhook is refused and changes nothing; a
// complaint turns email off for the notification's category; SNS's
// subscription confirmation is fetched.

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "channels/email/receipts/sns.hpp"
#include "core/encoding.hpp"
#include "core/time_format.hpp"
#include "http/email_receipt_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/suppression_routes.hpp"
#include "testing/test_keys.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;
using testing::kAuth;

constexpr char kTopic[] = "arn:aws:sns:eu-central-1:123456789012:ses-events";
constexpr char kCertUrl[] =
    "https://sns.eu-central-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem";
constexpr char kMailgunKey[] = "mailgun-signing-key";

class EmailReceiptRoutesTest : public testing::HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    sns_key_ = chopar::testing::NewRsaKeyPem();
    sns_certificate_ = chopar::testing::SelfSignedCertificatePem(sns_key_, "sns.amazonaws.com");
    sendgrid_key_ = chopar::testing::NewP256KeyPem();
    EmailReceiptSecrets secrets;
    secrets.ses_topic_arns = {kTopic};
    secrets.sendgrid_public_keys = {
        core::Base64Encode(chopar::testing::PublicKeyDerOfPem(sendgrid_key_))};
    secrets.mailgun_signing_keys = {kMailgunKey};
    secrets.postmark_credentials = {{"chopar", "pm-hook-pass"}};
    // Amazon's certificate URL answers with the test's certificate; the
    // subscription's URL is recorded.
    secrets.fetch = [this](const std::string& url) -> std::optional<std::string> {
      const std::lock_guard lock(mutex_);
      fetched_.push_back(url);
      if (url == kCertUrl) return sns_certificate_;
      return std::string("<ConfirmSubscriptionResponse/>");
    };
    client_.reset();
    server_ = std::make_unique<Server>(DefaultSettings(),
                                       Dependencies{*pool_, *notify_, *users_, *inbox_, metrics_});
    RegisterEmailReceiptRoutes(server_->router(), *pool_, *users_, clock_, secrets);
    RegisterSuppressionRoutes(server_->router(), *pool_);
    server_->Start();
    client_ = std::make_unique<testing::HttpClient>(server_->port());
  }

  // A sent email delivery to user `user` (`email`) whose provider message id is `id`.
  std::int64_t SentEmail(std::int64_t user, const std::string& email, const std::string& id,
                         const std::string& category = "") {
    PutUser(user, {{"email", email}});
    json extra = {{"channels", {"email"}}};
    if (!category.empty()) extra["category"] = category;
    const auto created = Notify(user, extra);
    EXPECT_EQ(created.status, 201) << created.body;
    const auto notification = json::parse(created.body)["id"].get<std::int64_t>();
    const auto rows = pool_->Acquire()->ExecText(
        "UPDATE chopar.deliveries SET status = 'sent', sent_at = now(), claimed_at = now(), "
        "attempts = 1, provider_message_id = '" +
            id + "' WHERE notification_id = " + std::to_string(notification) + " RETURNING id",
        {});
    return rows.Int(0, "id");
  }

  std::string ProviderStatus(std::int64_t delivery) {
    const auto rows = pool_->Acquire()->ExecText(
        "SELECT coalesce(provider_status, '') AS s FROM chopar.deliveries WHERE id = " +
            std::to_string(delivery),
        {});
    return rows.String(0, "s");
  }

  json Suppressions() {
    const auto listed = client().Get("/v1/suppressions?channel=email", {kAuth});
    EXPECT_EQ(listed.status, 200) << listed.body;
    return json::parse(listed.body)["items"];
  }

  // SES's event `message`, in an SNS notification published at `at`, signed.
  std::string SnsNotification(const json& message, core::TimePoint at, bool forge = false) {
    json body = {{"Type", "Notification"},
                 {"MessageId", "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324"},
                 {"TopicArn", kTopic},
                 {"Message", message.dump()},
                 {"Timestamp", core::FormatRfc3339(at)},
                 {"SignatureVersion", "2"},
                 {"Signature", ""},
                 {"SigningCertURL", kCertUrl}};
    return Signed(body, forge);
  }
  std::string Signed(json body, bool forge) {
    const auto parsed = channels::email::receipts::ParseSnsMessage(body.dump());
    EXPECT_TRUE(parsed.has_value());
    body["Signature"] = core::Base64Encode(chopar::testing::SignWithPem(
        sns_key_, EVP_sha256(), channels::email::receipts::SnsStringToSign(*parsed)));
    if (forge) body["Message"] = body["Message"].get<std::string>() + " ";
    return body.dump();
  }

  static json SesBounce(const std::string& message_id, const std::string& address) {
    return {{"notificationType", "Bounce"},
            {"bounce",
             {{"bounceType", "Permanent"},
              {"bounceSubType", "General"},
              {"bouncedRecipients",
               {{{"emailAddress", address}, {"diagnosticCode", "smtp; 550 5.1.1 user unknown"}}}},
              {"timestamp", "2026-12-06T10:00:00.000Z"}}},
            {"mail", {{"messageId", message_id}, {"destination", {address}}}}};
  }

  std::string sns_key_, sns_certificate_, sendgrid_key_;
  std::mutex mutex_;
  std::vector<std::string> fetched_;
};

TEST_F(EmailReceiptRoutesTest, SesHardBounceThroughSnsSuppressesTheAddress) {
  const auto delivery = SentEmail(1, "Aziz@Example.uz", "0107-ses-1");
  const auto now = std::chrono::system_clock::now();
  // Forged (the message changed after signing): refused, nothing changes.
  auto forged =
      client().Post("/v1/email/receipts/ses",
                    SnsNotification(SesBounce("0107-ses-1", "aziz@example.uz"), now, true),
                    {"Content-Type: text/plain"});
  EXPECT_EQ(forged.status, 401) << forged.body;
  // Published two hours ago: outside SNS's window, a replay.
  auto stale = client().Post(
      "/v1/email/receipts/ses",
      SnsNotification(SesBounce("0107-ses-1", "aziz@example.uz"), now - std::chrono::hours(2)),
      {"Content-Type: text/plain"});
  EXPECT_EQ(stale.status, 401) << stale.body;
  EXPECT_EQ(ProviderStatus(delivery), "");
  EXPECT_TRUE(Suppressions().empty());

  const auto valid = client().Post("/v1/email/receipts/ses",
                                   SnsNotification(SesBounce("0107-ses-1", "Aziz@Example.uz"), now),
                                   {"Content-Type: text/plain"});
  ASSERT_EQ(valid.status, 200) << valid.body;
  EXPECT_EQ(json::parse(valid.body)["suppressed"], 1);
  EXPECT_EQ(ProviderStatus(delivery), "bounced");
  const json listed = Suppressions();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["address"], "aziz@example.uz");
  EXPECT_EQ(listed[0]["reason"], "bounce");
  EXPECT_EQ(listed[0]["provider"], "ses");
  // The same receipt again changes nothing.
  const auto again = client().Post("/v1/email/receipts/ses",
                                   SnsNotification(SesBounce("0107-ses-1", "aziz@example.uz"), now),
                                   {"Content-Type: text/plain"});
  EXPECT_EQ(json::parse(again.body)["recorded"], 0);
  EXPECT_EQ(json::parse(again.body)["suppressed"], 0);
  // Deleting the suppression restores the address.
  EXPECT_EQ(client().Delete("/v1/suppressions/email/aziz@example.uz", {kAuth}).status, 204);
  EXPECT_TRUE(Suppressions().empty());
  EXPECT_EQ(client().Delete("/v1/suppressions/email/aziz@example.uz", {kAuth}).status, 404);
}

TEST_F(EmailReceiptRoutesTest, SesComplaintTurnsEmailOffForTheCategory) {
  const auto delivery = SentEmail(2, "vali@example.uz", "0107-ses-2", "tasks");
  const json complaint = {
      {"notificationType", "Complaint"},
      {"complaint",
       {{"complainedRecipients", {{{"emailAddress", "vali@example.uz"}}}},
        {"complaintFeedbackType", "abuse"},
        {"timestamp", "2026-12-06T10:00:00.000Z"}}},
      {"mail", {{"messageId", "0107-ses-2"}, {"destination", {"vali@example.uz"}}}}};
  const auto answer = client().Post("/v1/email/receipts/ses",
                                    SnsNotification(complaint, std::chrono::system_clock::now()),
                                    {"Content-Type: text/plain"});
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(json::parse(answer.body)["unsubscribed"], 1);
  EXPECT_EQ(ProviderStatus(delivery), "complained");
  const auto user = json::parse(client().Get("/v1/users/2", {kAuth}).body);
  EXPECT_EQ(user["preferences"]["categories"]["tasks"]["email"], false) << user.dump();
  EXPECT_TRUE(Suppressions().empty()) << "a complaint unsubscribes; it does not suppress";
}

TEST_F(EmailReceiptRoutesTest, SnsSubscriptionConfirmationIsFetched) {
  const std::string subscribe =
      std::string("https://sns.eu-central-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=") +
      kTopic + "&Token=2336412f";
  const json confirmation = {{"Type", "SubscriptionConfirmation"},
                             {"MessageId", "165545c9-2a5c-472c-8df2-7ff2be2b3b1b"},
                             {"Token", "2336412f"},
                             {"TopicArn", kTopic},
                             {"Message", "You have chosen to subscribe"},
                             {"SubscribeURL", subscribe},
                             {"Timestamp", core::FormatRfc3339(std::chrono::system_clock::now())},
                             {"SignatureVersion", "1"},
                             {"Signature", ""},
                             {"SigningCertURL", kCertUrl}};
  json body = confirmation;
  const auto parsed = channels::email::receipts::ParseSnsMessage(body.dump());
  ASSERT_TRUE(parsed.has_value());
  body["Signature"] = core::Base64Encode(chopar::testing::SignWithPem(
      sns_key_, EVP_sha1(), channels::email::receipts::SnsStringToSign(*parsed)));
  const auto answer =
      client().Post("/v1/email/receipts/ses", body.dump(), {"Content-Type: text/plain"});
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(json::parse(answer.body)["confirmed"], true);
  const std::lock_guard lock(mutex_);
  EXPECT_NE(std::find(fetched_.begin(), fetched_.end(), subscribe), fetched_.end());
}

TEST_F(EmailReceiptRoutesTest, SendGridBounceIsVerifiedByItsEcdsaSignature) {
  const auto delivery = SentEmail(3, "sardor@example.uz", "sg-0001");
  const std::string body = json::array({{{"email", "sardor@example.uz"},
                                         {"event", "bounce"},
                                         {"type", "bounce"},
                                         {"reason", "550 5.1.1 unknown user"},
                                         {"sg_message_id", "sg-0001.filter0001.1234.0"},
                                         {"timestamp", 1765000000}}})
                               .dump();
  const auto post = [&](std::int64_t timestamp, const std::string& signed_body) {
    const std::string ts = std::to_string(timestamp);
    const std::string signature = core::Base64Encode(
        chopar::testing::SignWithPem(sendgrid_key_, EVP_sha256(), ts + signed_body));
    return client().Post(
        "/v1/email/receipts/sendgrid", body,
        {"Content-Type: application/json", "X-Twilio-Email-Event-Webhook-Timestamp: " + ts,
         "X-Twilio-Email-Event-Webhook-Signature: " + signature});
  };
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  EXPECT_EQ(post(now, body + " ").status, 401);   // signed over another body
  EXPECT_EQ(post(now - 3600, body).status, 401);  // an hour old: a replay
  EXPECT_EQ(ProviderStatus(delivery), "");
  const auto valid = post(now, body);
  ASSERT_EQ(valid.status, 200) << valid.body;
  EXPECT_EQ(ProviderStatus(delivery), "bounced");
  ASSERT_EQ(Suppressions().size(), 1u);
  EXPECT_EQ(Suppressions()[0]["provider"], "sendgrid");
}

TEST_F(EmailReceiptRoutesTest, MailgunBounceIsVerifiedByItsHmac) {
  const auto delivery = SentEmail(4, "kamola@example.uz", "<20261206.1@mg.acme.uz>");
  const auto post = [&](std::int64_t timestamp, const std::string& key) {
    const std::string ts = std::to_string(timestamp);
    const std::string token = "tok-" + ts;
    const json body = {{"signature",
                        {{"timestamp", ts},
                         {"token", token},
                         {"signature", core::HexEncode(core::HmacSha256(key, ts + token))}}},
                       {"event-data",
                        {{"event", "failed"},
                         {"severity", "permanent"},
                         {"recipient", "kamola@example.uz"},
                         {"timestamp", static_cast<double>(timestamp)},
                         {"delivery-status", {{"code", 550}, {"description", "No such mailbox"}}},
                         {"message", {{"headers", {{"message-id", "20261206.1@mg.acme.uz"}}}}}}}};
    return client().Post("/v1/email/receipts/mailgun", body.dump(),
                         {"Content-Type: application/json"});
  };
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  EXPECT_EQ(post(now, "another-key").status, 401);
  EXPECT_EQ(post(now - 3600, kMailgunKey).status, 401);
  EXPECT_EQ(ProviderStatus(delivery), "");
  const auto valid = post(now, kMailgunKey);
  ASSERT_EQ(valid.status, 200) << valid.body;
  EXPECT_EQ(ProviderStatus(delivery), "bounced");
  ASSERT_EQ(Suppressions().size(), 1u);
  EXPECT_EQ(Suppressions()[0]["address"], "kamola@example.uz");
}

TEST_F(EmailReceiptRoutesTest, PostmarkBounceIsVerifiedByBasicAuth) {
  const auto delivery = SentEmail(5, "nodira@example.uz", "pm-0001");
  const json bounce = {{"RecordType", "Bounce"},
                       {"Type", "HardBounce"},
                       {"TypeCode", 1},
                       {"MessageID", "pm-0001"},
                       {"Email", "nodira@example.uz"},
                       {"Description", "The server was unable to deliver your message"},
                       {"BouncedAt", "2026-12-06T10:00:00Z"},
                       {"Inactive", true}};
  const auto post = [&](const std::string& user, const std::string& password) {
    return client().Post("/v1/email/receipts/postmark", bounce.dump(),
                         {"Content-Type: application/json",
                          "Authorization: Basic " + core::Base64Encode(user + ":" + password)});
  };
  EXPECT_EQ(post("chopar", "wrong").status, 401);
  EXPECT_EQ(ProviderStatus(delivery), "");
  const auto valid = post("chopar", "pm-hook-pass");
  ASSERT_EQ(valid.status, 200) << valid.body;
  EXPECT_EQ(ProviderStatus(delivery), "bounced");
  ASSERT_EQ(Suppressions().size(), 1u);
  EXPECT_EQ(Suppressions()[0]["provider"], "postmark");
}

}  // namespace
}  // namespace chopar::http
