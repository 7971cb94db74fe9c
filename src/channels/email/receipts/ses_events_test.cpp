#include "channels/email/receipts/ses_events.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channels/email/receipts/receipt_test_support.hpp"

namespace chopar::channels::email::receipts {
namespace {

using testing::Time;

const core::TimePoint kFallback = Time("2026-03-02T10:00:00Z");

// AWS's "Bounce notification without a DSN" example (notification
// contents), headers left out: two recipients of one message bounced.
constexpr char kBounceWithoutDsn[] = R"({
  "notificationType": "Bounce",
  "bounce": {
    "bounceType": "Permanent",
    "bounceSubType": "General",
    "bouncedRecipients": [
      {"emailAddress": "jane@example.com"},
      {"emailAddress": "richard@example.com"}
    ],
    "timestamp": "2016-01-27T14:59:38.237Z",
    "feedbackId": "00000137860315fd-869464a4-8680-4114-98d3-716fe35851f9-000000",
    "remoteMtaIp": "127.0.2.0"
  },
  "mail": {
    "timestamp": "2016-01-27T14:59:38.237Z",
    "messageId": "00000137860315fd-34208509-5b74-41f3-95c5-22c1edc3c924-000000",
    "source": "john@example.com",
    "sourceArn": "arn:aws:ses:us-east-1:888888888888:identity/example.com",
    "sourceIp": "127.0.3.0",
    "sendingAccountId": "123456789012",
    "destination": ["jane@example.com", "mary@example.com", "richard@example.com"]
  }
})";

// AWS's "Complaint notification with a feedback report" example.
constexpr char kComplaint[] = R"json({
  "notificationType": "Complaint",
  "complaint": {
    "userAgent": "AnyCompany Feedback Loop (V0.01)",
    "complainedRecipients": [{"emailAddress": "richard@example.com"}],
    "complaintFeedbackType": "abuse",
    "arrivalDate": "2016-01-27T14:59:38.237Z",
    "timestamp": "2016-01-27T14:59:38.237Z",
    "feedbackId": "000001378603177f-18c07c78-fa81-4a58-9dd1-fedc3cb8f49a-000000"
  },
  "mail": {
    "timestamp": "2016-01-27T14:59:38.237Z",
    "messageId": "000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000",
    "source": "john@example.com",
    "destination": ["jane@example.com", "mary@example.com", "richard@example.com"]
  }
})json";

// AWS's "delivery notification" example.
constexpr char kDelivery[] = R"({
  "notificationType": "Delivery",
  "mail": {
    "timestamp": "2016-01-27T14:59:38.237Z",
    "messageId": "0000014644fe5ef6-9a483358-9170-4cb4-a269-f5dcdf415321-000000",
    "source": "john@example.com",
    "destination": ["jane@example.com"]
  },
  "delivery": {
    "timestamp": "2016-01-27T14:59:38.237Z",
    "recipients": ["jane@example.com"],
    "processingTimeMillis": 546,
    "reportingMTA": "a8-70.smtp-out.amazonses.com",
    "smtpResponse": "250 ok:  Message 64111812 accepted",
    "remoteMtaIp": "127.0.2.0"
  }
})";

TEST(ParseSesEvent, ReadsEachBouncedRecipient) {
  const ReceiptBatch batch = ParseSesEvent(kBounceWithoutDsn, kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  ASSERT_EQ(batch.receipts.size(), 2u);
  EXPECT_EQ(batch.receipts[0].recipient, "jane@example.com");
  EXPECT_EQ(batch.receipts[1].recipient, "richard@example.com");
  for (const EmailReceipt& r : batch.receipts) {
    EXPECT_EQ(r.provider, "ses");
    EXPECT_EQ(r.provider_message_id,
              "00000137860315fd-34208509-5b74-41f3-95c5-22c1edc3c924-000000");
    EXPECT_EQ(r.kind, ReceiptKind::kBounced);
    EXPECT_TRUE(r.permanent);
    EXPECT_EQ(r.detail, "Permanent/General");
    EXPECT_EQ(r.at, Time("2016-01-27T14:59:38.237Z"));
  }
}

TEST(ParseSesEvent, ATransientOrUndeterminedBounceIsNotPermanent) {
  for (const char* type : {"Transient", "Undetermined"}) {
    nlohmann::json event = nlohmann::json::parse(kBounceWithoutDsn);
    event["bounce"]["bounceType"] = type;
    event["bounce"]["bounceSubType"] = "MailboxFull";
    event["bounce"]["bouncedRecipients"][0]["diagnosticCode"] = "smtp; 452 4.2.2 Mailbox full";
    const ReceiptBatch batch = ParseSesEvent(event.dump(), kFallback);
    ASSERT_TRUE(batch.ok()) << batch.reason;
    EXPECT_EQ(batch.receipts[0].kind, ReceiptKind::kBounced);
    EXPECT_FALSE(batch.receipts[0].permanent) << type;
    EXPECT_EQ(batch.receipts[0].detail,
              std::string(type) + "/MailboxFull: smtp; 452 4.2.2 Mailbox full");
  }
}

TEST(ParseSesEvent, ReadsAComplaint) {
  const ReceiptBatch batch = ParseSesEvent(kComplaint, kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  const EmailReceipt expected{"ses",
                              "000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000",
                              ReceiptKind::kComplained,
                              false,
                              "richard@example.com",
                              "abuse",
                              Time("2016-01-27T14:59:38.237Z")};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
}

TEST(ParseSesEvent, ReadsADelivery) {
  const ReceiptBatch batch = ParseSesEvent(kDelivery, kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  ASSERT_EQ(batch.receipts.size(), 1u);
  EXPECT_EQ(batch.receipts[0].kind, ReceiptKind::kDelivered);
  EXPECT_FALSE(batch.receipts[0].permanent);
  EXPECT_EQ(batch.receipts[0].recipient, "jane@example.com");
  EXPECT_EQ(batch.receipts[0].detail, "250 ok:  Message 64111812 accepted");
}

TEST(ParseSesEvent, ReadsEventPublishingsEventType) {
  nlohmann::json event = nlohmann::json::parse(kDelivery);
  event.erase("notificationType");
  event["eventType"] = "Delivery";
  const ReceiptBatch batch = ParseSesEvent(event.dump(), kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.receipts[0].kind, ReceiptKind::kDelivered);
}

TEST(ParseSesEvent, ADeliveryDelayIsOtherForEachDelayedRecipient) {
  const char* delay = R"({
    "eventType": "DeliveryDelay",
    "mail": {"timestamp": "2020-06-16T00:15:40.641Z", "messageId": "EXAMPLE7c191be45-e9aedb9a",
             "destination": ["recipient@example.com"]},
    "deliveryDelay": {
      "timestamp": "2020-06-16T00:25:40.095Z",
      "delayType": "TransientCommunicationFailure",
      "expirationTime": "2020-06-16T00:25:40.914Z",
      "delayedRecipients": [{"emailAddress": "recipient@example.com", "status": "4.4.1",
                             "diagnosticCode": "smtp; 421 4.4.0 Unable to Lookup DNS for example.com"}]
    }
  })";
  const ReceiptBatch batch = ParseSesEvent(delay, kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  ASSERT_EQ(batch.receipts.size(), 1u);
  EXPECT_EQ(batch.receipts[0].kind, ReceiptKind::kOther);
  EXPECT_EQ(batch.receipts[0].detail, "DeliveryDelay: TransientCommunicationFailure");
  EXPECT_EQ(batch.receipts[0].at, Time("2020-06-16T00:25:40.095Z"));
}

TEST(ParseSesEvent, AnOpenIsOtherForEachDestination) {
  const char* open = R"({
    "eventType": "Open",
    "mail": {"messageId": "EXAMPLE7c191be45-e9aedb9a", "destination": ["recipient@example.com"]},
    "open": {"ipAddress": "192.0.2.1", "timestamp": "2017-08-09T22:00:19.652Z"}
  })";
  const ReceiptBatch batch = ParseSesEvent(open, kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  const EmailReceipt expected{
      "ses",  "EXAMPLE7c191be45-e9aedb9a",     ReceiptKind::kOther, false, "recipient@example.com",
      "Open", Time("2017-08-09T22:00:19.652Z")};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
}

TEST(ParseSesEvent, FallsBackOnTheMailsTimeThenTheGivenOne) {
  nlohmann::json event = nlohmann::json::parse(kDelivery);
  event["delivery"].erase("timestamp");
  EXPECT_EQ(ParseSesEvent(event.dump(), kFallback).receipts[0].at,
            Time("2016-01-27T14:59:38.237Z"));
  event["mail"]["timestamp"] = "not a time";
  EXPECT_EQ(ParseSesEvent(event.dump(), kFallback).receipts[0].at, kFallback);
}

TEST(ParseSesEvent, RefusesWhatIsNoSesEvent) {
  EXPECT_EQ(ParseSesEvent("Hello world!", kFallback).refusal, Refusal::kMalformed);
  EXPECT_EQ(ParseSesEvent("[]", kFallback).refusal, Refusal::kMalformed);
  nlohmann::json event = nlohmann::json::parse(kDelivery);
  event["mail"].erase("messageId");
  EXPECT_EQ(ParseSesEvent(event.dump(), kFallback).refusal, Refusal::kMalformed);
  event = nlohmann::json::parse(kDelivery);
  event.erase("notificationType");
  EXPECT_EQ(ParseSesEvent(event.dump(), kFallback).refusal, Refusal::kMalformed);
}

TEST(ParseSesEvent, RefusesMoreRecipientsThanTheBound) {
  nlohmann::json event = nlohmann::json::parse(kDelivery);
  nlohmann::json recipients = nlohmann::json::array();
  for (std::size_t i = 0; i <= kMaxReceiptsPerWebhook; ++i) {
    recipients.push_back("r" + std::to_string(i) + "@example.com");
  }
  event["delivery"]["recipients"] = recipients;
  const ReceiptBatch batch = ParseSesEvent(event.dump(), kFallback);
  EXPECT_EQ(batch.refusal, Refusal::kTooMany);
  EXPECT_TRUE(batch.receipts.empty());
}

TEST(ParseSesEvent, CutsALongDiagnosticAndItsLineBreaks) {
  nlohmann::json event = nlohmann::json::parse(kBounceWithoutDsn);
  event["bounce"]["bouncedRecipients"][0]["diagnosticCode"] =
      "smtp; 550-5.1.1 line one\r\n550 5.1.1 " + std::string(1000, 'x');
  const ReceiptBatch batch = ParseSesEvent(event.dump(), kFallback);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_LE(batch.receipts[0].detail.size(), kMaxDetailBytes);
  EXPECT_EQ(batch.receipts[0].detail.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace chopar::channels::email::receipts
