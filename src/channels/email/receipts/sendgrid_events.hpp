#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/clock.hpp"
#include "core/openssl_handles.hpp"

namespace chopar::channels::email::receipts {

// SendGrid's signed Event Webhook: SendGrid POSTs a JSON array of events
// and signs, with its ECDSA P-256 key, the SHA-256 of the
// X-Twilio-Email-Event-Webhook-Timestamp header's value followed by the
// raw body; the signature (base64 DER) is in
// X-Twilio-Email-Event-Webhook-Signature.

inline constexpr std::string_view kSendGridSignatureHeader =
    "X-Twilio-Email-Event-Webhook-Signature";
inline constexpr std::string_view kSendGridTimestampHeader =
    "X-Twilio-Email-Event-Webhook-Timestamp";

// How far the signed timestamp may be from our clock, either side, before
// the request is refused as a replay. SendGrid names no bound; ten minutes
// leave room for its queueing and for clock skew.
inline constexpr std::chrono::seconds kSendGridMaxSkew = std::chrono::minutes(10);

// The verification key of a signed Event Webhook. Move-only; thread-safe
// to share read-only once built.
class SendGridVerificationKey {
 public:
  // From the key as SendGrid's console and API show it: base64 of a DER
  // SubjectPublicKeyInfo ("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…"). Throws
  // std::invalid_argument unless it is a P-256 public key (a configuration
  // error, found at startup).
  explicit SendGridVerificationKey(std::string_view base64_der);

  [[nodiscard]] EVP_PKEY* get() const { return key_.get(); }

 private:
  core::EvpPkey key_;
};

// Whether `signature_base64` is `key`'s ECDSA signature (SHA-256) of
// `timestamp` followed by `body`. False for a signature that is not base64
// DER. Throws std::runtime_error only when OpenSSL fails for want of
// memory. Thread-safe.
bool SendGridSignatureValid(const SendGridVerificationKey& key, std::string_view timestamp,
                            std::string_view body, std::string_view signature_base64);

// The id chopar stored from the send answer (its X-Message-Id header) for
// an event's sg_message_id, which is that id, a '.' and SendGrid's routing
// ("LRzXl_NHStOGhQ4kofSm_A.filterdrecv-…" → "LRzXl_NHStOGhQ4kofSm_A"): the
// text before the first '.'. An id without a '.' (X-Message-Id itself)
// stays as it is, so either side may be passed.
std::string SendGridStoredMessageId(std::string_view sg_message_id);

// The receipts of a signed Event Webhook request, checked in this order:
//   size                           kTooLarge over kMaxReceiptBodyBytes
//   SendGridSignatureValid         kUnauthenticated
//   timestamp within `max_skew`    kStale (kUnauthenticated when the
//                                  header is not Unix seconds)
//   a JSON array of objects        kMalformed; kTooMany past
//                                  kMaxReceiptsPerWebhook events
// One receipt per event, provider_message_id SendGridStoredMessageId of
// sg_message_id, recipient `email`, `at` the event's `timestamp` (else
// `now`):
//   delivered     kDelivered (detail: the server's response)
//   bounce        kBounced; permanent unless `type` is "blocked" (a block
//                 is the server refusing for now: reputation, content)
//   dropped       kBounced, SendGrid did not send it; permanent when the
//                 reason is "Bounced Address" or "Invalid" (the address,
//                 not the account or the content, is the cause)
//   spamreport    kComplained
//   deferred and any other event (processed, open, click, unsubscribe, …)
//                 kOther, detail the event's name
// An event without sg_message_id is skipped (counted in `skipped`).
// replay_key is the signature. Never throws for what the request holds.
// Thread-safe.
ReceiptBatch VerifiedSendGridReceipts(const SendGridVerificationKey& key,
                                      std::string_view timestamp_header,
                                      std::string_view signature_header, std::string_view body,
                                      core::TimePoint now,
                                      std::chrono::seconds max_skew = kSendGridMaxSkew);

}  // namespace chopar::channels::email::receipts
