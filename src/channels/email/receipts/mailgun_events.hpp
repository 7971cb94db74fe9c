#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email::receipts {

// Mailgun's webhooks: one event a POST, as JSON
//   {"signature": {"timestamp": "…", "token": "…", "signature": "…"},
//    "event-data": {…}}
// where signature is the hex HMAC-SHA256 of timestamp followed by token,
// under the domain's HTTP webhook signing key. The signature covers the
// token and the time, not the event: what ties the event to it is the
// TLS of the webhook URL. A caller that wants no request twice within the
// window remembers the tokens it saw (ReceiptBatch::replay_key).

// How far the signed timestamp may be from our clock, either side, before
// the request is refused as a replay. Mailgun asks receivers to check the
// timestamp is not too far from now and names no bound; ten minutes leave
// room for its queueing and for clock skew.
inline constexpr std::chrono::seconds kMailgunMaxSkew = std::chrono::minutes(10);

// Whether `signature` (hex, either case) is the HMAC-SHA256 of `timestamp`
// followed by `token` under `signing_key`, compared in constant time.
// False for an empty key. Pure.
bool MailgunSignatureValid(std::string_view signing_key, std::string_view timestamp,
                           std::string_view token, std::string_view signature);

// A Mailgun message id in the form chopar stored it: Mailgun's send
// answer gives "<20240101.abc@mg.example.com>", its webhooks
// "20240101.abc@mg.example.com". Either becomes the bracketed form (blanks
// and brackets around it taken off, then "<…>" put back), so both sides of
// a comparison pass through it alike; "" stays "".
std::string MailgunStoredMessageId(std::string_view id);

// The receipt of a Mailgun webhook, checked in this order:
//   size                          kTooLarge over kMaxReceiptBodyBytes
//   a JSON object with the three signature strings
//                                 kMalformed
//   MailgunSignatureValid         kUnauthenticated
//   timestamp within `max_skew`   kStale (kUnauthenticated when it is not
//                                 Unix seconds)
//   an "event-data" object        kMalformed
// then one receipt, provider_message_id MailgunStoredMessageId of
// event-data.message.headers.message-id (none, and `skipped` 1, when there
// is none), recipient event-data.recipient, `at` event-data.timestamp
// (else `now`), detail delivery-status's code and description (or
// message):
//   delivered    kDelivered
//   failed       kBounced, permanent when severity is "permanent" (not
//                "temporary")
//   rejected     kBounced, not permanent: Mailgun refused to send it
//   complained   kComplained
//   any other (accepted, opened, clicked, unsubscribed, …)
//                kOther, detail the event's name
// replay_key is the token. Never throws for what `body` holds. Pure;
// thread-safe.
ReceiptBatch VerifiedMailgunReceipts(std::string_view body, std::string_view signing_key,
                                     core::TimePoint now,
                                     std::chrono::seconds max_skew = kMailgunMaxSkew);

}  // namespace chopar::channels::email::receipts
