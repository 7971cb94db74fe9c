#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email::receipts {

// Amazon SES's receipts arrive through Amazon SNS: SNS POSTs a JSON
// envelope to an HTTPS subscription, signed with the key of an X.509
// certificate whose URL it names (SigningCertURL). SNS signs for every
// topic of every account alike, so a valid signature proves the message
// came from SNS, not that it came from chopar's topic: the topic's ARN is
// checked as well. Raw message delivery must be off (a raw message carries
// no signature). Fetching the certificate is the caller's: it fetches it
// over HTTPS from a URL SnsCertUrlAllowed accepts, and caches it.
//
// The caller's steps:
//   1. ParseSnsMessage(body): read only signing_cert_url (nothing in the
//      message is verified yet) and fetch that certificate (cached).
//   2. VerifiedSesReceipts(body, certificate_pem, topic_arn, now): the
//      receipts when everything holds; for a SubscriptionConfirmation the
//      SubscribeURL to GET, which confirms the subscription.

enum class SnsType { kNotification, kSubscriptionConfirmation, kUnsubscribeConfirmation };

// The fields of an SNS message, as they came: nothing here is verified.
struct SnsMessage {
  SnsType type = SnsType::kNotification;
  std::string message_id;
  std::string topic_arn;
  std::optional<std::string> subject;  // notifications may have one
  std::string message;                 // the SES event's JSON, as text
  std::string timestamp;               // when SNS published it (RFC 3339)
  std::string token;                   // confirmations only
  std::string subscribe_url;           // confirmations only
  std::string signature_version;       // "1" (SHA1withRSA) or "2" (SHA256withRSA)
  std::string signature;               // base64
  std::string signing_cert_url;
};

// Messages older than this (by their Timestamp, when SNS published them)
// are refused as replays. SNS keeps a message's Timestamp and signature
// through its retries, and an HTTP/S delivery policy spreads its retries
// over an hour at most.
inline constexpr std::chrono::seconds kSnsMaxAge = std::chrono::hours(1);
// How far ahead of our clock a Timestamp may be (clock skew).
inline constexpr std::chrono::seconds kSnsMaxAhead = std::chrono::minutes(5);

// The SNS message in an HTTP POST body: a JSON object whose Type is
// Notification, SubscriptionConfirmation or UnsubscribeConfirmation, with
// string values for every field its string to sign needs and for
// SignatureVersion, Signature and SigningCertURL. nullopt for anything else,
// and for a body over kMaxReceiptBodyBytes. Never throws for what `body`
// holds. Pure; thread-safe.
std::optional<SnsMessage> ParseSnsMessage(std::string_view body);

// Whether `url` may be fetched as an SNS signing certificate: exactly
// "https://sns.<region>.amazonaws.com/<path>.pem" (or a China region's
// ".amazonaws.com.cn"), the region letters, digits and '-', the path
// letters, digits and "._-/" — so no other scheme, user, port, query,
// fragment or escape, and a host that libcurl reads the same. Pure.
bool SnsCertUrlAllowed(std::string_view url);

// The string SNS signs for `message`: "Name\nvalue\n" for Message,
// MessageId, Subject (notifications, when present), SubscribeURL
// (confirmations), Timestamp, Token (confirmations), TopicArn and Type, in
// that (byte) order. Pure.
std::string SnsStringToSign(const SnsMessage& message);

// Whether `message`'s Signature is the RSA signature of its string to sign
// under the public key of `certificate_pem` (an X.509 certificate in PEM),
// with SHA-1 for SignatureVersion "1" and SHA-256 for "2". False for any
// other version, a signature that is not base64, a certificate that does
// not parse or holds no RSA key. Does not check the certificate's URL
// (SnsCertUrlAllowed) nor its chain: it is trusted for having come over
// HTTPS from SNS. Throws std::runtime_error only when OpenSSL fails for
// want of memory. Thread-safe.
bool VerifySnsSignature(const SnsMessage& message, std::string_view certificate_pem);

// Whether `message`'s Timestamp is at most `max_age` before `now` and at
// most kSnsMaxAhead after it; false for a Timestamp that is not RFC 3339.
// Pure.
bool SnsTimestampFresh(const SnsMessage& message, core::TimePoint now,
                       std::chrono::seconds max_age = kSnsMaxAge);

// What a verified SNS message holds for the caller.
struct [[nodiscard]] SnsReceipts : ReceiptBatch {
  SnsType type = SnsType::kNotification;  // meaningful when ok()
  // kSubscriptionConfirmation: the URL whose GET confirms the subscription
  // (https, on an SNS host).
  std::string subscribe_url;
};

// The receipts of the SNS message `body`, checked in this order:
//   size                         kTooLarge over kMaxReceiptBodyBytes
//   ParseSnsMessage              kMalformed
//   SnsCertUrlAllowed            kUnauthenticated
//   TopicArn == topic_arn        kUnauthenticated (another account's topic;
//                                an empty `topic_arn` refuses every message)
//   VerifySnsSignature           kUnauthenticated
//   SnsTimestampFresh            kStale
// then by type: a Notification's Message read by ParseSesEvent (its
// refusals; the SNS Timestamp is the fallback time); a
// SubscriptionConfirmation's SubscribeURL, kMalformed unless it is https
// on an SNS host; an UnsubscribeConfirmation, nothing more. replay_key is
// the MessageId. `certificate_pem` is the certificate fetched from the
// message's SigningCertURL. Never throws for what `body` holds (OpenSSL
// failing for want of memory throws std::runtime_error). Thread-safe.
SnsReceipts VerifiedSesReceipts(std::string_view body, std::string_view certificate_pem,
                                std::string_view topic_arn, core::TimePoint now);

}  // namespace chopar::channels::email::receipts
