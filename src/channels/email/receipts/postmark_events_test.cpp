#include "channels/email/receipts/postmark_events.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "channels/email/receipts/receipt_test_support.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::email::receipts {
namespace {

constexpr char kUser[] = "chopar-postmark";
constexpr char kPassword[] = "p0stm4rk-w3bh00k-s3cret";

const std::string kAuthorization =
    "Basic " + core::Base64Encode("chopar-postmark:p0stm4rk-w3bh00k-s3cret");
using testing::Time;

const core::TimePoint kNow = Time("2026-03-02T10:00:00Z");

// Postmark's example records (its webhook documentation), with chopar's ids.
constexpr char kDelivery[] = R"({
  "RecordType": "Delivery",
  "ServerID": 23,
  "MessageStream": "outbound",
  "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
  "Recipient": "john@example.com",
  "Tag": "welcome-email",
  "DeliveredAt": "2019-11-05T16:33:54.9070259Z",
  "Details": "smtp;250 2.0.0 OK 1480624905 l186si10190883ite.73 - gsmtp",
  "Metadata": {"chopar_delivery_id": "4242"}
})";

constexpr char kHardBounce[] = R"({
  "RecordType": "Bounce",
  "MessageStream": "outbound",
  "ID": 4323372036854775807,
  "Type": "HardBounce",
  "TypeCode": 1,
  "Name": "Hard bounce",
  "Tag": "Invitation",
  "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
  "Metadata": {"chopar_delivery_id": "4242"},
  "ServerID": 23,
  "Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
  "Details": "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
  "Email": "john@example.com",
  "From": "sender@example.com",
  "BouncedAt": "2019-11-05T16:33:54.9070259Z",
  "DumpAvailable": true,
  "Inactive": true,
  "CanActivate": true,
  "Subject": "Test subject"
})";

constexpr char kSpamComplaint[] = R"({
  "RecordType": "SpamComplaint",
  "MessageStream": "outbound",
  "ID": 42,
  "Type": "SpamComplaint",
  "TypeCode": 512,
  "Name": "Spam complaint",
  "MessageID": "00000000-0000-0000-0000-000000000000",
  "ServerID": 1234,
  "Description": "The subscriber explicitly marked this message as spam.",
  "Details": "Test spam complaint details",
  "Email": "john@example.com",
  "From": "sender@example.com",
  "BouncedAt": "2019-11-05T16:33:54.9070259Z",
  "DumpAvailable": true,
  "Inactive": true,
  "CanActivate": false,
  "Subject": "Test subject"
})";

ReceiptBatch Verified(std::string_view body) {
  return VerifiedPostmarkReceipts(kAuthorization, kUser, kPassword, body, kNow);
}

// kHardBounce with another Type and Inactive.
std::string Bounce(std::string_view type, bool inactive) {
  nlohmann::json record = nlohmann::json::parse(kHardBounce);
  record["Type"] = type;
  record["Inactive"] = inactive;
  return record.dump();
}

TEST(PostmarkAuth, AcceptsTheWebhookUrlsCredentials) {
  EXPECT_TRUE(PostmarkAuthValid(kAuthorization, kUser, kPassword));
  EXPECT_TRUE(PostmarkAuthValid(
      "basic " + core::Base64Encode("chopar-postmark:p0stm4rk-w3bh00k-s3cret"), kUser, kPassword));
  EXPECT_TRUE(PostmarkAuthValid("  " + kAuthorization + " ", kUser, kPassword));
}

TEST(PostmarkAuth, RefusesOtherCredentials) {
  EXPECT_FALSE(PostmarkAuthValid(kAuthorization, kUser, "another-password"));
  EXPECT_FALSE(PostmarkAuthValid(kAuthorization, "another-user", kPassword));
  EXPECT_FALSE(
      PostmarkAuthValid("Basic " + core::Base64Encode("chopar-postmark:"), kUser, kPassword));
  EXPECT_FALSE(PostmarkAuthValid(
      "Bearer " + core::Base64Encode("chopar-postmark:p0stm4rk-w3bh00k-s3cret"), kUser, kPassword));
  EXPECT_FALSE(PostmarkAuthValid(core::Base64Encode("chopar-postmark:p0stm4rk-w3bh00k-s3cret"),
                                 kUser, kPassword));
  EXPECT_FALSE(PostmarkAuthValid("Basic not-base64!", kUser, kPassword));
  EXPECT_FALSE(PostmarkAuthValid("", kUser, kPassword));
}

TEST(PostmarkAuth, UnsetCredentialsAdmitNoOne) {
  EXPECT_FALSE(PostmarkAuthValid("Basic " + core::Base64Encode(":"), "", ""));
  EXPECT_FALSE(PostmarkAuthValid("Basic " + core::Base64Encode("chopar-postmark:"), kUser, ""));
}

TEST(VerifiedPostmarkReceipts, ReadsADelivery) {
  const ReceiptBatch batch = Verified(kDelivery);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_TRUE(batch.replay_key.empty());
  const EmailReceipt expected{"postmark",
                              "883953f4-6105-42a2-a16a-77a8eac79483",
                              ReceiptKind::kDelivered,
                              false,
                              "john@example.com",
                              "smtp;250 2.0.0 OK 1480624905 l186si10190883ite.73 - gsmtp",
                              Time("2019-11-05T16:33:54.907025Z")};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
}

TEST(VerifiedPostmarkReceipts, AHardBounceIsPermanent) {
  const ReceiptBatch batch = Verified(kHardBounce);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  const EmailReceipt expected{"postmark",
                              "883953f4-6105-42a2-a16a-77a8eac79483",
                              ReceiptKind::kBounced,
                              true,
                              "john@example.com",
                              "HardBounce: The server was unable to deliver your message (ex: "
                              "unknown user, mailbox not found).",
                              Time("2019-11-05T16:33:54.907025Z")};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
  EXPECT_TRUE(Verified(Bounce("HardBounce", false)).receipts.at(0).permanent);
  EXPECT_TRUE(Verified(Bounce("BadEmailAddress", false)).receipts.at(0).permanent);
}

TEST(VerifiedPostmarkReceipts, ASoftBounceIsPermanentOnlyOnceTheAddressIsInactive) {
  for (const char* type : {"SoftBounce", "Transient", "DnsError", "Blocked"}) {
    const ReceiptBatch active = Verified(Bounce(type, false));
    ASSERT_TRUE(active.ok()) << active.reason;
    EXPECT_EQ(active.receipts.at(0).kind, ReceiptKind::kBounced) << type;
    EXPECT_FALSE(active.receipts.at(0).permanent) << type;
    EXPECT_TRUE(Verified(Bounce(type, true)).receipts.at(0).permanent) << type;
  }
}

TEST(VerifiedPostmarkReceipts, ReadsSpamComplaints) {
  ReceiptBatch batch = Verified(kSpamComplaint);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kComplained);
  EXPECT_EQ(batch.receipts.at(0).detail, "SpamComplaint");
  EXPECT_EQ(batch.receipts.at(0).recipient, "john@example.com");
  batch = Verified(Bounce("SpamNotification", false));
  EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kComplained);
}

TEST(VerifiedPostmarkReceipts, BounceRecordsThatRefuseNothingAreOther) {
  for (const char* type : {"AutoResponder", "Unsubscribe", "AddressChange"}) {
    const ReceiptBatch batch = Verified(Bounce(type, false));
    ASSERT_TRUE(batch.ok()) << batch.reason;
    EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kOther) << type;
    EXPECT_FALSE(batch.receipts.at(0).permanent) << type;
  }
}

TEST(VerifiedPostmarkReceipts, AnOpenIsOther) {
  const ReceiptBatch batch = Verified(R"({
    "RecordType": "Open", "MessageStream": "outbound", "FirstOpen": true,
    "Recipient": "john@example.com", "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
    "ReceivedAt": "2019-11-05T16:33:54.9070259Z", "Platform": "WebMail", "ReadSeconds": 5,
    "UserAgent": "Mozilla/5.0"
  })");
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.receipts.at(0).kind, ReceiptKind::kOther);
  EXPECT_EQ(batch.receipts.at(0).detail, "Open");
  EXPECT_EQ(batch.receipts.at(0).recipient, "john@example.com");
}

TEST(VerifiedPostmarkReceipts, RefusesWrongCredentialsBeforeReadingTheBody) {
  const ReceiptBatch batch =
      VerifiedPostmarkReceipts(kAuthorization, kUser, "another-password", "not json", kNow);
  EXPECT_EQ(batch.refusal, Refusal::kUnauthenticated);
  EXPECT_EQ(VerifiedPostmarkReceipts("", kUser, kPassword, kDelivery, kNow).refusal,
            Refusal::kUnauthenticated);
}

TEST(VerifiedPostmarkReceipts, RefusesMalformedAndOversizedBodies) {
  EXPECT_EQ(Verified("not json").refusal, Refusal::kMalformed);
  EXPECT_EQ(Verified(R"([{"RecordType": "Delivery"}])").refusal, Refusal::kMalformed);
  EXPECT_EQ(Verified(R"({"MessageID": "883953f4"})").refusal, Refusal::kMalformed);
  EXPECT_EQ(Verified(std::string(kMaxReceiptBodyBytes + 1, ' ')).refusal, Refusal::kTooLarge);
}

TEST(VerifiedPostmarkReceipts, SkipsARecordThatNamesNoMessage) {
  nlohmann::json record = nlohmann::json::parse(kDelivery);
  record.erase("MessageID");
  const ReceiptBatch batch = Verified(record.dump());
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.skipped, 1u);
  EXPECT_TRUE(batch.receipts.empty());
}

TEST(VerifiedPostmarkReceipts, DatesARecordWithoutATimeWhenItCame) {
  nlohmann::json record = nlohmann::json::parse(kDelivery);
  record.erase("DeliveredAt");
  EXPECT_EQ(Verified(record.dump()).receipts.at(0).at, kNow);
}

}  // namespace
}  // namespace chopar::channels::email::receipts
