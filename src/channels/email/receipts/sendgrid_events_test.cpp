#include "channels/email/receipts/sendgrid_events.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/email/receipts/receipt_test_support.hpp"
#include "core/encoding.hpp"
#include "testing/test_keys.hpp"

namespace chopar::channels::email::receipts {
namespace {

using namespace std::chrono_literals;
using testing::UnixSeconds;

// The test vector of SendGrid's own libraries (sendgrid-ruby's event
// webhook fixtures): a real verification key, a "dropped" event and its
// signature. The body ends in CRLF, as SendGrid sends it.
constexpr char kSdkKey[] =
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+"
    "2fNNRaINXvVpiglSI8eNEc6wEA3F+g==";
constexpr char kSdkSignature[] =
    "MEUCIGHQVtGj+Y3LkG9fLcxf3qfI10QysgDWmMOVmxG0u6ZUAiEAyBiXDWzM+uOe5W0JuG+"
    "luQAbPIqHh89M15TluLtEZtM=";
constexpr char kSdkTimestamp[] = "1600112502";
constexpr char kSdkBody[] =
    R"([{"email":"hello@world.com","event":"dropped","reason":"Bounced Address",)"
    R"("sg_event_id":"ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA",)"
    R"("sg_message_id":"LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0",)"
    R"("smtp-id":"<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>","timestamp":1600112492}])"
    "\r\n";

// One of each event SendGrid's Event Webhook reference shows, with the
// ids of a message chopar sent; the blocked bounce is a real one's shape
// (no status, a reason from the MX lookup).
constexpr char kBatch[] = R"([
  {"email":"aziz@example.uz","timestamp":1772442000,"smtp-id":"<Xy7kP2mWQa2v1c3d4e5f6g@ismtpd0001p1lon1.sendgrid.net>",
   "event":"processed","category":"task.due","sg_event_id":"cHJvY2Vzc2VkLTEyMzQ1","sg_message_id":"Xy7kP2mWQa2v1c3d4e5f6g.recvd-5f54b5d587-pczjm-1-67BADEEA-6.0"},
  {"email":"aziz@example.uz","timestamp":1772442010,"event":"deferred","response":"400 try again later","attempt":"5",
   "sg_event_id":"ZGVmZXJyZWQtMTIzNDU","sg_message_id":"Xy7kP2mWQa2v1c3d4e5f6g.recvd-5f54b5d587-pczjm-1-67BADEEA-6.0"},
  {"email":"aziz@example.uz","timestamp":1772442020,"event":"delivered","response":"250 2.0.0 OK  1772442020 gsmtp","ip":"168.1.1.1","tls":1,
   "sg_event_id":"ZGVsaXZlcmVkLTEyMzQ1","sg_message_id":"Xy7kP2mWQa2v1c3d4e5f6g.recvd-5f54b5d587-pczjm-1-67BADEEA-6.0"},
  {"email":"nodir@example.uz","timestamp":1772442030,"event":"bounce","type":"bounce","status":"5.0.0",
   "reason":"550 5.1.1 The email account that you tried to reach does not exist.","bounce_classification":"Invalid Address",
   "sg_event_id":"Ym91bmNlLTEyMzQ1","sg_message_id":"Ab3dEf6hIj9kLm2nOp5qRs.recvd-5f54b5d587-pczjm-1-67BADEEA-7.0"},
  {"email":"noemail@this.does.not.exist.tld","timestamp":1772442040,"event":"bounce","type":"blocked",
   "reason":"unable to get mx info: failed to get IPs from PTR record: lookup <nil>: unrecognized address",
   "bounce_classification":"Unclassified","tls":0,
   "sg_event_id":"Ym91bmNlLTQtNTA0ODUxOTU","sg_message_id":"euo2iKxdSayPF4YE4--I7A.recvd-5f54b5d587-pczjm-1-67BADEEA-6.0"},
  {"email":"olim@example.uz","timestamp":1772442050,"event":"dropped","reason":"Unsubscribed Address",
   "sg_event_id":"ZHJvcHBlZC0xMjM0NQ","sg_message_id":"Qw8eRt7yUi6oPa5sDf4gHj.recvd-5f54b5d587-pczjm-1-67BADEEA-8.0"},
  {"email":"aziz@example.uz","timestamp":1772442060,"event":"spamreport",
   "sg_event_id":"c3BhbXJlcG9ydC0xMjM0NQ","sg_message_id":"Xy7kP2mWQa2v1c3d4e5f6g.recvd-5f54b5d587-pczjm-1-67BADEEA-6.0"},
  {"email":"aziz@example.uz","timestamp":1772442070,"event":"open","sg_machine_open":false,"useragent":"Mozilla/4.0","ip":"255.255.255.255",
   "sg_event_id":"b3Blbi0xMjM0NQ","sg_message_id":"Xy7kP2mWQa2v1c3d4e5f6g.recvd-5f54b5d587-pczjm-1-67BADEEA-6.0"}
])";

const core::TimePoint kNow = UnixSeconds(1772442100);

// A P-256 key of the test's, and a verifier of it as SendGrid's console
// would give it.
struct TestSigner {
  std::string private_key_pem = chopar::testing::NewP256KeyPem();
  SendGridVerificationKey key{
      core::Base64Encode(chopar::testing::PublicKeyDerOfPem(private_key_pem))};

  std::string Sign(std::string_view timestamp, std::string_view body) const {
    return core::Base64Encode(chopar::testing::SignWithPem(
        private_key_pem, EVP_sha256(), std::string(timestamp) + std::string(body)));
  }
};

const TestSigner& Signer() {
  static const TestSigner signer;
  return signer;
}

ReceiptBatch Verified(std::string_view body, core::TimePoint now = kNow) {
  const std::string timestamp = std::to_string(
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
  return VerifiedSendGridReceipts(Signer().key, timestamp, Signer().Sign(timestamp, body), body,
                                  now);
}

TEST(SendGridSignature, HoldsForSendGridsOwnTestVectors) {
  const SendGridVerificationKey key(kSdkKey);
  EXPECT_TRUE(SendGridSignatureValid(key, kSdkTimestamp, kSdkBody, kSdkSignature));
  // The single-event vector of the same libraries, with its own key.
  const SendGridVerificationKey first(
      "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQG"
      "hHPTnlvFYPAZFceEu/1FwCM/QmGUhA==");
  EXPECT_TRUE(SendGridSignatureValid(
      first, "1588788367",
      R"({"category":"example_payload","event":"test_event","message_id":"message_id"})",
      "MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/"
      "U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/"
      "0="));
}

TEST(SendGridSignature, FailsForTheVectorsForgeries) {
  const SendGridVerificationKey key(kSdkKey);
  // The libraries' "bad signature": one digit changed.
  EXPECT_FALSE(
      SendGridSignatureValid(key, kSdkTimestamp, kSdkBody,
                             "MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/"
                             "U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH3j/0="));
  EXPECT_FALSE(SendGridSignatureValid(key, kSdkTimestamp, "payload", kSdkSignature));
  EXPECT_FALSE(SendGridSignatureValid(key, "1600112503", kSdkBody, kSdkSignature));
  // The body without its trailing CRLF is another body.
  std::string trimmed(kSdkBody);
  trimmed.resize(trimmed.size() - 2);
  EXPECT_FALSE(SendGridSignatureValid(key, kSdkTimestamp, trimmed, kSdkSignature));
  EXPECT_FALSE(SendGridSignatureValid(key, kSdkTimestamp, kSdkBody, "not base64!"));
  EXPECT_FALSE(SendGridSignatureValid(key, kSdkTimestamp, kSdkBody, ""));
  const SendGridVerificationKey other(
      "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqTxd43gyp8IOEto2LdIfjRQrIbsd4SXZkLW6jDutdhXSJCWHw8REntlo"
      "7"
      "aNDthvj+y7GjUuFDb/R1NGe1OPzpA==");
  EXPECT_FALSE(SendGridSignatureValid(other, kSdkTimestamp, kSdkBody, kSdkSignature));
}

TEST(VerifiedSendGridReceipts, ReadsSendGridsSignedTestBatch) {
  const ReceiptBatch batch =
      VerifiedSendGridReceipts(SendGridVerificationKey(kSdkKey), kSdkTimestamp, kSdkSignature,
                               kSdkBody, UnixSeconds(1600112502) + 1min);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.replay_key, kSdkSignature);
  const EmailReceipt expected{
      "sendgrid",        "LRzXl_NHStOGhQ4kofSm_A",   ReceiptKind::kBounced,  true,
      "hello@world.com", "dropped: Bounced Address", UnixSeconds(1600112492)};
  EXPECT_EQ(batch.receipts, std::vector<EmailReceipt>{expected});
}

TEST(VerifiedSendGridReceipts, MapsEachEventKind) {
  const ReceiptBatch batch = Verified(kBatch);
  ASSERT_TRUE(batch.ok()) << batch.reason;
  ASSERT_EQ(batch.receipts.size(), 8u);
  const auto& r = batch.receipts;
  EXPECT_EQ(r[0].kind, ReceiptKind::kOther);
  EXPECT_EQ(r[0].detail, "processed");
  EXPECT_EQ(r[0].provider_message_id, "Xy7kP2mWQa2v1c3d4e5f6g");
  EXPECT_EQ(r[0].at, UnixSeconds(1772442000));
  EXPECT_EQ(r[1].kind, ReceiptKind::kOther);
  EXPECT_EQ(r[1].detail, "deferred: 400 try again later");
  EXPECT_EQ(r[2].kind, ReceiptKind::kDelivered);
  EXPECT_EQ(r[2].detail, "250 2.0.0 OK  1772442020 gsmtp");
  EXPECT_EQ(r[2].recipient, "aziz@example.uz");
  EXPECT_EQ(r[3].kind, ReceiptKind::kBounced);
  EXPECT_TRUE(r[3].permanent);
  EXPECT_EQ(r[3].detail,
            "bounce 5.0.0 550 5.1.1 The email account that you tried to reach does not exist.");
  EXPECT_EQ(r[3].provider_message_id, "Ab3dEf6hIj9kLm2nOp5qRs");
  EXPECT_EQ(r[4].kind, ReceiptKind::kBounced);
  EXPECT_FALSE(r[4].permanent) << "a block is not a hard bounce";
  EXPECT_EQ(r[4].provider_message_id, "euo2iKxdSayPF4YE4--I7A");
  EXPECT_EQ(r[5].kind, ReceiptKind::kBounced);
  EXPECT_FALSE(r[5].permanent) << "an unsubscribed address still takes mail";
  EXPECT_EQ(r[5].detail, "dropped: Unsubscribed Address");
  EXPECT_EQ(r[6].kind, ReceiptKind::kComplained);
  EXPECT_EQ(r[7].kind, ReceiptKind::kOther);
  EXPECT_EQ(r[7].detail, "open");
}

TEST(VerifiedSendGridReceipts, RefusesAForgedBody) {
  const std::string timestamp = "1772442100";
  const std::string signature = Signer().Sign(timestamp, kBatch);
  std::string forged(kBatch);
  forged.replace(forged.find("\"type\":\"blocked\""), 16, "\"type\":\"bounce\" ");
  const ReceiptBatch batch =
      VerifiedSendGridReceipts(Signer().key, timestamp, signature, forged, kNow);
  EXPECT_EQ(batch.refusal, Refusal::kUnauthenticated);
  EXPECT_TRUE(batch.receipts.empty());
}

TEST(VerifiedSendGridReceipts, RefusesAnotherTimestampThanTheSignedOne) {
  const std::string signature = Signer().Sign("1772442100", kBatch);
  EXPECT_EQ(VerifiedSendGridReceipts(Signer().key, "1772442101", signature, kBatch, kNow).refusal,
            Refusal::kUnauthenticated);
}

TEST(VerifiedSendGridReceipts, RefusesAReplayOutsideTheWindow) {
  const std::string timestamp = "1772442100";
  const std::string signature = Signer().Sign(timestamp, kBatch);
  for (const auto now : {kNow + kSendGridMaxSkew + 1s, kNow - kSendGridMaxSkew - 1s}) {
    const ReceiptBatch batch =
        VerifiedSendGridReceipts(Signer().key, timestamp, signature, kBatch, now);
    EXPECT_EQ(batch.refusal, Refusal::kStale);
    EXPECT_TRUE(batch.receipts.empty());
  }
  EXPECT_TRUE(
      VerifiedSendGridReceipts(Signer().key, timestamp, signature, kBatch, kNow + 9min).ok());
}

TEST(VerifiedSendGridReceipts, RefusesASignedTimestampThatIsNoTime) {
  const std::string signature = Signer().Sign("soon", kBatch);
  EXPECT_EQ(VerifiedSendGridReceipts(Signer().key, "soon", signature, kBatch, kNow).refusal,
            Refusal::kUnauthenticated);
}

TEST(VerifiedSendGridReceipts, RefusesSignedBodiesThatAreNoEventArray) {
  EXPECT_EQ(Verified(R"({"event":"delivered"})").refusal, Refusal::kMalformed);
  EXPECT_EQ(Verified("[1, 2]").refusal, Refusal::kMalformed);
  EXPECT_EQ(Verified("[{").refusal, Refusal::kMalformed);
}

TEST(VerifiedSendGridReceipts, SkipsEventsThatNameNoMessage) {
  const ReceiptBatch batch = Verified(
      R"([{"email":"a@example.uz","event":"delivered","timestamp":1772442000},
          {"email":"b@example.uz","event":"delivered","sg_message_id":"Zz1.filter","timestamp":"x"}])");
  ASSERT_TRUE(batch.ok()) << batch.reason;
  EXPECT_EQ(batch.skipped, 1u);
  ASSERT_EQ(batch.receipts.size(), 1u);
  EXPECT_EQ(batch.receipts[0].provider_message_id, "Zz1");
  EXPECT_EQ(batch.receipts[0].at, kNow) << "an event without a time is dated when it came";
}

TEST(VerifiedSendGridReceipts, RefusesOversizedBodiesAndTooManyEvents) {
  const std::string huge(kMaxReceiptBodyBytes + 1, ' ');
  EXPECT_EQ(Verified(huge).refusal, Refusal::kTooLarge);
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t i = 0; i <= kMaxReceiptsPerWebhook; ++i) {
    events.push_back({{"event", "delivered"}, {"sg_message_id", "m" + std::to_string(i)}});
  }
  const ReceiptBatch batch = Verified(events.dump());
  EXPECT_EQ(batch.refusal, Refusal::kTooMany);
  EXPECT_TRUE(batch.receipts.empty());
}

TEST(SendGridVerificationKey, RefusesWhatIsNoP256PublicKey) {
  EXPECT_THROW(SendGridVerificationKey(""), std::invalid_argument);
  EXPECT_THROW(SendGridVerificationKey("not base64!"), std::invalid_argument);
  EXPECT_THROW(SendGridVerificationKey(core::Base64Encode("just bytes")), std::invalid_argument);
  const std::string rsa = chopar::testing::NewRsaKeyPem();
  EXPECT_THROW(SendGridVerificationKey(core::Base64Encode(chopar::testing::PublicKeyDerOfPem(rsa))),
               std::invalid_argument);
}

TEST(SendGridStoredMessageId, IsTheXMessageIdBeforeTheFirstDot) {
  EXPECT_EQ(
      SendGridStoredMessageId("LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18"),
      "LRzXl_NHStOGhQ4kofSm_A");
  EXPECT_EQ(SendGridStoredMessageId("LRzXl_NHStOGhQ4kofSm_A"), "LRzXl_NHStOGhQ4kofSm_A");
  EXPECT_EQ(SendGridStoredMessageId(""), "");
}

}  // namespace
}  // namespace chopar::channels::email::receipts
