#pragma once

#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email::receipts {

// Postmark's webhooks: one record a POST, as a JSON object with a
// RecordType. Postmark signs nothing: a webhook is authenticated by the
// HTTP basic credentials written into its URL
// ("https://user:password@chopar.example.com/…"), which Postmark sends in
// the Authorization header, over TLS. Nor does it carry a signed time, so
// there is no replay window: replay protection rests on TLS (a request
// cannot be read off the wire to be sent again), on the secret, and on
// effects that are idempotent (a receipt recorded twice changes nothing
// the second time).

// Whether `authorization_header` is "Basic " (the scheme in any case)
// followed by the base64 of expected_user ":" expected_password. Compared
// in constant time (on SHA-256 digests, so not even the length leaks).
// False when either expected value is empty: unset credentials admit no
// one. Pure.
bool PostmarkAuthValid(std::string_view authorization_header, std::string_view expected_user,
                       std::string_view expected_password);

// The receipt of a Postmark webhook, checked in this order:
//   PostmarkAuthValid             kUnauthenticated
//   size                          kTooLarge over kMaxReceiptBodyBytes
//   a JSON object with a RecordType
//                                 kMalformed
// then one receipt, provider_message_id MessageID (what the send answered;
// none, and `skipped` 1, when it is missing), recipient Email or Recipient,
// `at` DeliveredAt, BouncedAt, ReceivedAt or ChangedAt (else `now`):
//   Delivery        kDelivered, detail Details
//   Bounce          by Type: SpamComplaint and SpamNotification
//                   kComplained; HardBounce, BadEmailAddress and
//                   ManuallyDeactivated kBounced and permanent; Transient,
//                   SoftBounce, DnsError, Blocked and the other failures
//                   kBounced, permanent only when Postmark set Inactive
//                   (it will not send to the address again);
//                   Unsubscribe, Subscribe, AutoResponder, AddressChange,
//                   ChallengeVerification and OpenRelayTest kOther (the
//                   message was not refused). Detail: Type and Description
//   SpamComplaint   kComplained
//   any other (Open, Click, SubscriptionChange, …)
//                   kOther, detail the RecordType
// Never throws for what the request holds. Pure; thread-safe.
ReceiptBatch VerifiedPostmarkReceipts(std::string_view authorization_header,
                                      std::string_view expected_user,
                                      std::string_view expected_password, std::string_view body,
                                      core::TimePoint now);

}  // namespace chopar::channels::email::receipts
