#include "channels/email/receipts/sns.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include "channels/email/receipts/receipt_test_support.hpp"
#include "core/encoding.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::email::receipts {
namespace {

using namespace std::chrono_literals;
using testing::Time;

constexpr char kTopic[] = "arn:aws:sns:eu-central-1:123456789012:chopar-ses-events";
constexpr char kCertUrl[] =
    "https://sns.eu-central-1.amazonaws.com/"
    "SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem";
constexpr char kPublished[] = "2026-03-02T09:15:04.321Z";

// A permanent bounce as SES publishes it (the shape of AWS's "Bounce
// notification with a DSN" example, without the headers).
constexpr char kSesBounce[] = R"({
  "notificationType": "Bounce",
  "bounce": {
    "bounceType": "Permanent",
    "bounceSubType": "General",
    "bouncedRecipients": [{
      "emailAddress": "dilnoza@example.uz",
      "status": "5.1.1",
      "action": "failed",
      "diagnosticCode": "smtp; 550 5.1.1 <dilnoza@example.uz>... User unknown"
    }],
    "timestamp": "2026-03-02T09:15:03.237Z",
    "feedbackId": "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa068a-000000",
    "reportingMTA": "dns; email.example.uz"
  },
  "mail": {
    "timestamp": "2026-03-02T09:14:58.120Z",
    "source": "noreply@acme.uz",
    "messageId": "0102018e0c3f1a2b-5a6c7d8e-1f2a-4b3c-9d8e-7f6a5b4c3d2e-000000",
    "destination": ["dilnoza@example.uz"]
  }
})";

const std::string& SnsKey() {
  static const std::string key = chopar::testing::NewRsaKeyPem();
  return key;
}

const std::string& SnsCertificate() {
  static const std::string cert =
      chopar::testing::SelfSignedCertificatePem(SnsKey(), "sns.amazonaws.com");
  return cert;
}

// `body` (an SNS message with an empty Signature) signed as SNS signs it,
// with `key_pem` and the digest of its SignatureVersion.
std::string Signed(nlohmann::json body, const std::string& key_pem = SnsKey()) {
  const auto parsed = ParseSnsMessage(body.dump());
  if (!parsed) throw std::logic_error("the test's SNS message does not parse");
  const EVP_MD* md = body["SignatureVersion"] == "1" ? EVP_sha1() : EVP_sha256();
  body["Signature"] =
      core::Base64Encode(chopar::testing::SignWithPem(key_pem, md, SnsStringToSign(*parsed)));
  return body.dump(2);
}

// An SNS notification of `message`, as SNS POSTs it, not yet signed.
nlohmann::json Notification(std::string_view message, std::string_view version = "2") {
  return {
      {"Type", "Notification"},
      {"MessageId", "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324"},
      {"TopicArn", kTopic},
      {"Message", message},
      {"Timestamp", kPublished},
      {"SignatureVersion", version},
      {"Signature", ""},
      {"SigningCertURL", kCertUrl},
      {"UnsubscribeURL",
       "https://sns.eu-central-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=" +
           std::string(kTopic) + ":c9135db0-26c4-47ec-8998-413945fb5a96"},
  };
}

nlohmann::json Confirmation(std::string_view subscribe_url) {
  return {
      {"Type", "SubscriptionConfirmation"},
      {"MessageId", "165545c9-2a5c-472c-8df2-7ff2be2b3b1b"},
      {"Token", "2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747"},
      {"TopicArn", kTopic},
      {"Message", "You have chosen to subscribe to the topic " + std::string(kTopic) +
                      ".\nTo confirm the subscription, visit the SubscribeURL included in this "
                      "message."},
      {"SubscribeURL", subscribe_url},
      {"Timestamp", kPublished},
      {"SignatureVersion", "1"},
      {"Signature", ""},
      {"SigningCertURL", kCertUrl},
  };
}

std::string ConfirmUrl() {
  return "https://sns.eu-central-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=" +
         std::string(kTopic) + "&Token=2336412f37fb687f5d51e6e241d09c805a5a57b30d712f7";
}

SnsMessage ParsedOrFail(const std::string& body) {
  auto parsed = ParseSnsMessage(body);
  if (!parsed) throw std::logic_error("the test's SNS message does not parse");
  return *parsed;
}

TEST(SnsStringToSign, IsAwsDocumentedExampleForANotification) {
  SnsMessage m;
  m.type = SnsType::kNotification;
  m.message = "My Test Message";
  m.message_id = "4d4dc071-ddbf-465d-bba8-08f81c89da64";
  m.subject = "My subject";
  m.timestamp = "2019-01-31T04:37:04.321Z";
  m.topic_arn = "arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P";
  EXPECT_EQ(SnsStringToSign(m),
            "Message\nMy Test Message\n"
            "MessageId\n4d4dc071-ddbf-465d-bba8-08f81c89da64\n"
            "Subject\nMy subject\n"
            "Timestamp\n2019-01-31T04:37:04.321Z\n"
            "TopicArn\narn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P\n"
            "Type\nNotification\n");
}

TEST(SnsStringToSign, IsAwsDocumentedExampleForASubscriptionConfirmation) {
  SnsMessage m;
  m.type = SnsType::kSubscriptionConfirmation;
  m.message = "My Test Message";
  m.message_id = "3d891288-136d-417f-bc05-901c108273ee";
  m.subscribe_url =
      "https://sns.us-east-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-"
      "east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P&Token=233...";
  m.timestamp = "2019-01-31T19:25:13.719Z";
  m.token = "233...";
  m.topic_arn = "arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P";
  EXPECT_EQ(SnsStringToSign(m),
            "Message\nMy Test Message\n"
            "MessageId\n3d891288-136d-417f-bc05-901c108273ee\n"
            "SubscribeURL\n" +
                m.subscribe_url +
                "\n"
                "Timestamp\n2019-01-31T19:25:13.719Z\n"
                "Token\n233...\n"
                "TopicArn\narn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P\n"
                "Type\nSubscriptionConfirmation\n");
}

TEST(SnsStringToSign, LeavesOutASubjectThatIsAbsentOrNull) {
  nlohmann::json body = Notification("hello");
  const std::string without = SnsStringToSign(ParsedOrFail(body.dump()));
  EXPECT_EQ(without.find("Subject"), std::string::npos);
  body["Subject"] = nullptr;
  EXPECT_EQ(SnsStringToSign(ParsedOrFail(body.dump())), without);
  body["Subject"] = "Amazon SES Email Event Notification";
  EXPECT_NE(SnsStringToSign(ParsedOrFail(body.dump())).find("Subject\nAmazon SES Email Event"),
            std::string::npos);
}

TEST(ParseSnsMessage, RefusesWhatIsNoSignedSnsMessage) {
  EXPECT_FALSE(ParseSnsMessage("not json"));
  EXPECT_FALSE(ParseSnsMessage("[]"));
  nlohmann::json body = Notification("hello");
  body["Type"] = "Broadcast";
  EXPECT_FALSE(ParseSnsMessage(body.dump()));
  body = Notification("hello");
  body["Timestamp"] = 1700000000;
  EXPECT_FALSE(ParseSnsMessage(body.dump()));
  body = Notification("hello");
  body.erase("SigningCertURL");
  EXPECT_FALSE(ParseSnsMessage(body.dump()));
  body = Confirmation(ConfirmUrl());
  body.erase("Token");
  EXPECT_FALSE(ParseSnsMessage(body.dump()));
  EXPECT_FALSE(ParseSnsMessage(std::string(kMaxReceiptBodyBytes + 1, ' ')));
}

TEST(SnsCertUrlAllowed, AcceptsSnsCertificatesOfEveryRegion) {
  EXPECT_TRUE(SnsCertUrlAllowed(kCertUrl));
  EXPECT_TRUE(
      SnsCertUrlAllowed("https://sns.us-east-1.amazonaws.com/"
                        "SimpleNotificationService-01d088a6f77103d0fe307c0069e40ed6.pem"));
  EXPECT_TRUE(SnsCertUrlAllowed("https://sns.us-gov-west-1.amazonaws.com/x/y.pem"));
  EXPECT_TRUE(
      SnsCertUrlAllowed("https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-a.pem"));
}

TEST(SnsCertUrlAllowed, RefusesOtherHostsSchemesAndTricks) {
  for (const char* url : {
           "http://sns.us-east-1.amazonaws.com/x.pem",
           "HTTPS://sns.us-east-1.amazonaws.com/x.pem",
           "https://sns.us-east-1.amazonaws.com.evil.com/x.pem",
           "https://evil.com/sns.us-east-1.amazonaws.com/x.pem",
           "https://sns.us-east-1.amazonaws.com@evil.com/x.pem",
           "https://user@sns.us-east-1.amazonaws.com/x.pem",
           "https://sns.us-east-1.amazonaws.com:8443/x.pem",
           "https://sns.us-east-1.amazonaws.com\\@evil.com/x.pem",
           "https://sns.evil.com#.us-east-1.amazonaws.com/x.pem",
           "https://evilsns.us-east-1.amazonaws.com/x.pem",
           "https://sns.amazonaws.com/x.pem",
           "https://sqs.us-east-1.amazonaws.com/x.pem",
           "https://sns.us-east-1.amazonaws.com/x.pem?.pem",
           "https://sns.us-east-1.amazonaws.com/x.pem#frag",
           "https://sns.us-east-1.amazonaws.com/x.crt",
           "https://sns.us-east-1.amazonaws.com/../x.pem",
           "https://sns.us-east-1.amazonaws.com/%2e%2e/x.pem",
           "https://sns.us-east-1.amazonaws.com",
           "https://sns.us-east-1.amazonaws.com/.pem",
           "",
       }) {
    EXPECT_FALSE(SnsCertUrlAllowed(url)) << url;
  }
}

TEST(VerifySnsSignature, HoldsForBothSignatureVersions) {
  for (const char* version : {"1", "2"}) {
    const SnsMessage m = ParsedOrFail(Signed(Notification(kSesBounce, version)));
    EXPECT_TRUE(VerifySnsSignature(m, SnsCertificate())) << "SignatureVersion " << version;
  }
  const SnsMessage confirmation = ParsedOrFail(Signed(Confirmation(ConfirmUrl())));
  EXPECT_TRUE(VerifySnsSignature(confirmation, SnsCertificate()));
}

TEST(VerifySnsSignature, FailsForAChangedMessage) {
  SnsMessage m = ParsedOrFail(Signed(Notification(kSesBounce)));
  m.message.replace(m.message.find("Permanent"), 9, "Transient");
  EXPECT_FALSE(VerifySnsSignature(m, SnsCertificate()));
}

TEST(VerifySnsSignature, FailsForAnotherCertificate) {
  const SnsMessage m = ParsedOrFail(Signed(Notification(kSesBounce)));
  const std::string other = chopar::testing::SelfSignedCertificatePem(
      chopar::testing::NewRsaKeyPem(), "sns.amazonaws.com");
  EXPECT_FALSE(VerifySnsSignature(m, other));
}

TEST(VerifySnsSignature, FailsForAVersionSignedWithTheOtherDigest) {
  SnsMessage m = ParsedOrFail(Signed(Notification(kSesBounce, "2")));
  m.signature_version = "1";
  EXPECT_FALSE(VerifySnsSignature(m, SnsCertificate()));
  m.signature_version = "3";
  EXPECT_FALSE(VerifySnsSignature(m, SnsCertificate()));
}

TEST(VerifySnsSignature, FailsForMalformedSignatureOrCertificate) {
  SnsMessage m = ParsedOrFail(Signed(Notification(kSesBounce)));
  EXPECT_FALSE(VerifySnsSignature(m, ""));
  EXPECT_FALSE(
      VerifySnsSignature(m, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"));
  m.signature = "not base64!";
  EXPECT_FALSE(VerifySnsSignature(m, SnsCertificate()));
  m.signature = "";
  EXPECT_FALSE(VerifySnsSignature(m, SnsCertificate()));
}

TEST(VerifySnsSignature, FailsForACertificateWithoutAnRsaKey) {
  const std::string ec_key = chopar::testing::NewP256KeyPem();
  const SnsMessage m = ParsedOrFail(Signed(Notification(kSesBounce), ec_key));
  EXPECT_FALSE(VerifySnsSignature(
      m, chopar::testing::SelfSignedCertificatePem(ec_key, "sns.amazonaws.com")));
}

TEST(SnsTimestampFresh, AcceptsAnHourBackAndAFewMinutesAhead) {
  const SnsMessage m = ParsedOrFail(Notification("hello").dump());
  const core::TimePoint published = Time(kPublished);
  EXPECT_TRUE(SnsTimestampFresh(m, published));
  EXPECT_TRUE(SnsTimestampFresh(m, published + 59min));
  EXPECT_TRUE(SnsTimestampFresh(m, published - 4min));
  EXPECT_FALSE(SnsTimestampFresh(m, published + 61min));
  EXPECT_FALSE(SnsTimestampFresh(m, published - 6min));
  EXPECT_TRUE(SnsTimestampFresh(m, published + 2h, 3h));
  SnsMessage odd = m;
  odd.timestamp = "yesterday";
  EXPECT_FALSE(SnsTimestampFresh(odd, published));
}

TEST(VerifiedSesReceipts, ReadsTheSesBounceOfAValidNotification) {
  const std::string body = Signed(Notification(kSesBounce));
  const SnsReceipts result =
      VerifiedSesReceipts(body, SnsCertificate(), kTopic, Time(kPublished) + 10s);
  ASSERT_TRUE(result.ok()) << result.reason;
  EXPECT_EQ(result.type, SnsType::kNotification);
  EXPECT_EQ(result.replay_key, "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324");
  const EmailReceipt expected{
      "ses",
      "0102018e0c3f1a2b-5a6c7d8e-1f2a-4b3c-9d8e-7f6a5b4c3d2e-000000",
      ReceiptKind::kBounced,
      true,
      "dilnoza@example.uz",
      "Permanent/General: smtp; 550 5.1.1 <dilnoza@example.uz>... User unknown",
      Time("2026-03-02T09:15:03.237Z")};
  EXPECT_EQ(result.receipts, std::vector<EmailReceipt>{expected});
}

TEST(VerifiedSesReceipts, RefusesAForgedMessage) {
  nlohmann::json body = nlohmann::json::parse(Signed(Notification(kSesBounce)));
  std::string message = body["Message"];
  message.replace(message.find("Permanent"), 9, "Transient");
  body["Message"] = message;
  const SnsReceipts result =
      VerifiedSesReceipts(body.dump(), SnsCertificate(), kTopic, Time(kPublished));
  EXPECT_EQ(result.refusal, Refusal::kUnauthenticated);
  EXPECT_TRUE(result.receipts.empty());
}

TEST(VerifiedSesReceipts, RefusesAnotherCertificate) {
  const std::string body = Signed(Notification(kSesBounce));
  const std::string other = chopar::testing::SelfSignedCertificatePem(
      chopar::testing::NewRsaKeyPem(), "sns.amazonaws.com");
  EXPECT_EQ(VerifiedSesReceipts(body, other, kTopic, Time(kPublished)).refusal,
            Refusal::kUnauthenticated);
}

TEST(VerifiedSesReceipts, RefusesAReplayOutsideTheWindow) {
  const std::string body = Signed(Notification(kSesBounce));
  const SnsReceipts result =
      VerifiedSesReceipts(body, SnsCertificate(), kTopic, Time(kPublished) + kSnsMaxAge + 1s);
  EXPECT_EQ(result.refusal, Refusal::kStale);
  EXPECT_TRUE(result.receipts.empty());
}

TEST(VerifiedSesReceipts, RefusesAnotherAccountsTopicThoughSnsSignedIt) {
  nlohmann::json notification = Notification(kSesBounce);
  notification["TopicArn"] = "arn:aws:sns:eu-central-1:999999999999:someone-elses-topic";
  const std::string body = Signed(notification);
  EXPECT_EQ(VerifiedSesReceipts(body, SnsCertificate(), kTopic, Time(kPublished)).refusal,
            Refusal::kUnauthenticated);
  EXPECT_EQ(VerifiedSesReceipts(body, SnsCertificate(), "", Time(kPublished)).refusal,
            Refusal::kUnauthenticated);
}

TEST(VerifiedSesReceipts, RefusesACertificateUrlOffSns) {
  nlohmann::json notification = Notification(kSesBounce);
  notification["SigningCertURL"] = "https://sns.eu-central-1.amazonaws.com.evil.com/cert.pem";
  const SnsReceipts result =
      VerifiedSesReceipts(Signed(notification), SnsCertificate(), kTopic, Time(kPublished));
  EXPECT_EQ(result.refusal, Refusal::kUnauthenticated);
  EXPECT_NE(result.reason.find("SigningCertURL"), std::string::npos);
}

TEST(VerifiedSesReceipts, RefusesMalformedAndOversizedBodies) {
  EXPECT_EQ(VerifiedSesReceipts("{\"Type\":", SnsCertificate(), kTopic, Time(kPublished)).refusal,
            Refusal::kMalformed);
  EXPECT_EQ(VerifiedSesReceipts(std::string(kMaxReceiptBodyBytes + 1, '{'), SnsCertificate(),
                                kTopic, Time(kPublished))
                .refusal,
            Refusal::kTooLarge);
  // Signed, but its Message is no SES event.
  const SnsReceipts result = VerifiedSesReceipts(Signed(Notification("Hello world!")),
                                                 SnsCertificate(), kTopic, Time(kPublished));
  EXPECT_EQ(result.refusal, Refusal::kMalformed);
}

TEST(VerifiedSesReceipts, GivesTheSubscribeUrlOfAConfirmation) {
  const std::string body = Signed(Confirmation(ConfirmUrl()));
  const SnsReceipts result = VerifiedSesReceipts(body, SnsCertificate(), kTopic, Time(kPublished));
  ASSERT_TRUE(result.ok()) << result.reason;
  EXPECT_EQ(result.type, SnsType::kSubscriptionConfirmation);
  EXPECT_EQ(result.subscribe_url, ConfirmUrl());
  EXPECT_TRUE(result.receipts.empty());
}

TEST(VerifiedSesReceipts, RefusesAConfirmationWhoseSubscribeUrlLeavesSns) {
  const std::string body = Signed(Confirmation("https://169.254.169.254/latest/meta-data/"));
  EXPECT_EQ(VerifiedSesReceipts(body, SnsCertificate(), kTopic, Time(kPublished)).refusal,
            Refusal::kMalformed);
}

TEST(VerifiedSesReceipts, AcceptsAnUnsubscribeConfirmation) {
  nlohmann::json confirmation = Confirmation(ConfirmUrl());
  confirmation["Type"] = "UnsubscribeConfirmation";
  const SnsReceipts result =
      VerifiedSesReceipts(Signed(confirmation), SnsCertificate(), kTopic, Time(kPublished));
  ASSERT_TRUE(result.ok()) << result.reason;
  EXPECT_EQ(result.type, SnsType::kUnsubscribeConfirmation);
  EXPECT_TRUE(result.subscribe_url.empty());
}

}  // namespace
}  // namespace chopar::channels::email::receipts
