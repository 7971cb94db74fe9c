#include "channels/email/receipts/mailgun_events.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channels/email/receipts/receipt_test_support.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::email::receipts {
namespace {

using namespace std::chrono_literals;
using testing::UnixSeconds;

constexpr char kSigningKey[] = "7f6b1e9c2a4d8e0f3b5a7c9d1e3f5a7b";
constexpr char kToken[] = "651869375b9df3c98fc15c4889b102119add1235c38fc92824";
constexpr char kTimestamp[] = "1534108637";
// HMAC-SHA256(kSigningKey, kTimestamp + kToken), worked out apart from
// chopar (Python's hmac module).
constexpr char kSignature[] = "b226e2894474cdeb38ad325f07c8e0a34e0ab162029408db958c6edcb0ac60d2";

const core::TimePoint kNow = UnixSeconds(1534108637) + 30s;

// A delivered event as Mailgun sends it (the shape of a real one, as
// django-anymail's tests keep it), storage and flags left out.
constexpr char kDelivered[] = R"({
  "tags": [],
  "timestamp": 1534108637.153125,
  "recipient-domain": "example.com",
  "id": "hTWCTD81RtiDN-fGHfSgTw",
  "log-level": "info",
  "envelope": {"sender": "noreply@mg.acme.uz", "transport": "smtp", "targets": "recipient@example.com"},
  "message": {
    "headers": {
      "to": "recipient@example.com",
      "message-id": "20180812211713.1.DF5966851B4BAA99@mg.acme.uz",
      "from": "noreply@mg.acme.uz",
      "subject": "Hisobot muddati yaqin"
    },
    "attachments": [],
    "size": 809
  },
  "recipient": "recipient@example.com",
  "event": "delivered",
  "delivery-status": {
    "tls": true, "mx-host": "smtp-in.example.com", "attempt-no": 1, "description": "",
    "session-seconds": 3.5700838565826416, "utf8": true, "code": 250, "message": "OK",
    "certificate-verified": true
  }
})";

// `event_data` in a webhook body signed with `key` at `timestamp`.
std::string Webhook(const nlohmann::json& event_data, const std::string& timestamp = kTimestamp,
                    const std::string& key = kSigningKey) {
  const std::string signature = core::HexEncode(core::HmacSha256(key, timestamp + kToken));
  return nlohmann::json{
      {"signature", {{"timestamp", timestamp}, {"token", kToken}, {"signature", signature}}},
      {"event-data", event_data}}
      .dump();
}

nlohmann::json Event(std::string_view json) { return nlohmann::json::parse(json); }

TEST(MailgunSignature, IsTheHmacOfTimestampAndToken) {
  EXPECT_TRUE(MailgunSignatureValid(kSigningKey, kTimestamp, kToken, kSignature));
  std::string upper(kSignature);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(MailgunSignatureValid(kSigningKey, kTimestamp, kToken, upper));
}

TEST(MailgunSignature, FailsForAnythingChanged) {
  EXPECT_FALSE(MailgunSignatureValid("another-key", kTimestamp, kToken, kSignature));
  EXPECT_FALSE(MailgunSignatureValid(kSigningKey, "1534108638", kToken, kSignature));
  EXPECT_FALSE(MailgunSignatureValid(kSigningKey, kTimestamp, "another-token", kSignature));
  std::string flipped(kSignature);
  flipped[10] = flipped[10] == '0' ? '1' : '0';
  EXPECT_FALSE(MailgunSignatureValid(kSigningKey, kTimestamp, kToken, flipped));
  EXPECT_FALSE(MailgunSignatureValid(kSigningKey, kTimestamp, kToken, ""));
  EXPECT_FALSE(MailgunSignatureValid(
      "", kTimestamp, kToken,
      core::HexEncode(core::HmacSha256("", kTimestamp + std::string(kToken)))));
}

TEST(VerifiedMailgunReceipts, ReadsADeliveredEvent) {
  const ReceiptBatch batch = VerifiedMailgunReceipts(Webhook(Event(kDelivered)), kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.replay_key, kToken);
  // The id in the form Mailgun's send answer gave, which chopar stored.
  const EmailReceipt expected{"mailgun",
                              "<20180812211713.1.DF5966851B4BAA99@mg.acme.uz>",
                              ReceiptKind::kDelivered,
                              false,
                              "recipient@example.com",
                              "250 OK",
                              UnixSeconds(1534108637.153125)};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
}

TEST(VerifiedMailgunReceipts, APermanentFailureIsAHardBounce) {
  const ReceiptBatch batch = VerifiedMailgunReceipts(Webhook(Event(R"({
    "event": "failed", "severity": "permanent", "reason": "bounce",
    "recipient": "invalid@example.com", "timestamp": 1534110422.389832, "log-level": "error",
    "message": {"headers": {"to": "invalid@example.com",
                            "message-id": "20180812214658.1.0DF563D0B3597700@mg.acme.uz"}},
    "delivery-status": {"attempt-no": 1, "description": "", "code": 550,
      "message": "5.1.1 The email account that you tried to reach does not exist. Please try\n5.1.1 double-checking the recipient's email address for typos"}
  })")),
                                                     kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  const EmailReceipt expected{
      "mailgun",
      "<20180812214658.1.0DF563D0B3597700@mg.acme.uz>",
      ReceiptKind::kBounced,
      true,
      "invalid@example.com",
      "550 5.1.1 The email account that you tried to reach does not exist. Please try 5.1.1 "
      "double-checking the recipient's email address for typos",
      UnixSeconds(1534110422.389832)};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
}

TEST(VerifiedMailgunReceipts, ATemporaryFailureIsASoftBounce) {
  const ReceiptBatch batch = VerifiedMailgunReceipts(Webhook(Event(R"({
    "event": "failed", "severity": "temporary", "reason": "generic",
    "timestamp": 1534111899.659519, "log-level": "warn",
    "message": {"headers": {"to": "undeliverable@nomx.example.com",
                            "message-id": "20180812214638.1.4A7D468E9BC18C5D@mg.acme.uz"}},
    "recipient": "undeliverable@nomx.example.com",
    "delivery-status": {"attempt-no": 3, "description": "No MX for nomx.example.com",
      "session-seconds": 0.0, "retry-seconds": 1800, "code": 498,
      "message": "No MX for nomx.example.com"}
  })")),
                                                     kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kBounced);
  EXPECT_FALSE(batch.receipts.at(0).permanent);
  EXPECT_EQ(batch.receipts.at(0).detail, "498 No MX for nomx.example.com");
}

TEST(VerifiedMailgunReceipts, ASuppressedAddressIsAHardBounce) {
  const ReceiptBatch batch = VerifiedMailgunReceipts(Webhook(Event(R"({
    "event": "failed", "severity": "permanent", "reason": "suppress-bounce",
    "recipient": "gone@example.com", "timestamp": 1534110422,
    "message": {"headers": {"message-id": "20180812214658.2.AB@mg.acme.uz"}},
    "delivery-status": {"code": "605", "message": "Not delivering to previously bounced address"}
  })")),
                                                     kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_TRUE(batch.receipts.at(0).permanent);
  EXPECT_EQ(batch.receipts.at(0).detail, "605 Not delivering to previously bounced address");
}

TEST(VerifiedMailgunReceipts, ReadsAComplaintAndOtherEvents) {
  ReceiptBatch batch = VerifiedMailgunReceipts(Webhook(Event(R"({
    "event": "complained", "recipient": "angry@example.com", "timestamp": 1534110000,
    "message": {"headers": {"message-id": "20180812214658.3.CD@mg.acme.uz"}}
  })")),
                                               kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kComplained);
  batch = VerifiedMailgunReceipts(Webhook(Event(R"({
    "event": "opened", "recipient": "reader@example.com", "timestamp": 1534110000,
    "message": {"headers": {"message-id": "20180812214658.4.EF@mg.acme.uz"}}
  })")),
                                  kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kOther);
  EXPECT_EQ(batch.receipts.at(0).detail, "opened");
}

TEST(VerifiedMailgunReceipts, RefusesAWrongKeyOrAForgedSignature) {
  ReceiptBatch batch = VerifiedMailgunReceipts(
      Webhook(Event(kDelivered), kTimestamp, "another-key"), kSigningKey, kNow);
  EXPECT_EQ(batch.refusal, Refusal::kUnauthenticated);
  EXPECT_TRUE(batch.receipts.empty());
  nlohmann::json body = nlohmann::json::parse(Webhook(Event(kDelivered)));
  body["signature"]["timestamp"] = "1534108638";
  EXPECT_EQ(VerifiedMailgunReceipts(body.dump(), kSigningKey, kNow).refusal,
            Refusal::kUnauthenticated);
}

TEST(VerifiedMailgunReceipts, RefusesAReplayOutsideTheWindow) {
  const std::string body = Webhook(Event(kDelivered));
  const core::TimePoint signed_at = UnixSeconds(1534108637);
  EXPECT_EQ(VerifiedMailgunReceipts(body, kSigningKey, signed_at + kMailgunMaxSkew + 1s).refusal,
            Refusal::kStale);
  EXPECT_EQ(VerifiedMailgunReceipts(body, kSigningKey, signed_at - kMailgunMaxSkew - 1s).refusal,
            Refusal::kStale);
  EXPECT_TRUE(VerifiedMailgunReceipts(body, kSigningKey, signed_at + 9min).ok());
}

TEST(VerifiedMailgunReceipts, RefusesAMalformedBody) {
  EXPECT_EQ(VerifiedMailgunReceipts("not json", kSigningKey, kNow).refusal, Refusal::kMalformed);
  EXPECT_EQ(VerifiedMailgunReceipts(R"({"event-data": {"event": "delivered"}})", kSigningKey, kNow)
                .refusal,
            Refusal::kMalformed);
  nlohmann::json body = nlohmann::json::parse(Webhook(Event(kDelivered)));
  body.erase("event-data");
  EXPECT_EQ(VerifiedMailgunReceipts(body.dump(), kSigningKey, kNow).refusal, Refusal::kMalformed);
  EXPECT_EQ(VerifiedMailgunReceipts(std::string(kMaxReceiptBodyBytes + 1, ' '), kSigningKey, kNow)
                .refusal,
            Refusal::kTooLarge);
}

TEST(VerifiedMailgunReceipts, RefusesASignedTimestampThatIsNoTime) {
  EXPECT_EQ(
      VerifiedMailgunReceipts(Webhook(Event(kDelivered), "1534108637x"), kSigningKey, kNow).refusal,
      Refusal::kUnauthenticated);
}

TEST(VerifiedMailgunReceipts, SkipsAnEventThatNamesNoMessage) {
  nlohmann::json event = Event(kDelivered);
  event["message"]["headers"].erase("message-id");
  const ReceiptBatch batch = VerifiedMailgunReceipts(Webhook(event), kSigningKey, kNow);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.skipped, 1u);
  EXPECT_TRUE(batch.receipts.empty());
}

TEST(MailgunStoredMessageId, GivesBothSidesTheSendAnswersForm) {
  EXPECT_EQ(MailgunStoredMessageId("20111114174239.25659.5817@samples.mailgun.org"),
            "<20111114174239.25659.5817@samples.mailgun.org>");
  EXPECT_EQ(MailgunStoredMessageId("<20111114174239.25659.5817@samples.mailgun.org>"),
            "<20111114174239.25659.5817@samples.mailgun.org>");
  EXPECT_EQ(MailgunStoredMessageId(" <x@y> "), "<x@y>");
  EXPECT_EQ(MailgunStoredMessageId(""), "");
  EXPECT_EQ(MailgunStoredMessageId("<>"), "");
}

}  // namespace
}  // namespace chopar::channels::email::receipts
