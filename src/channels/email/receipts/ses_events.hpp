#pragma once

#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/clock.hpp"

namespace chopar::channels::email::receipts {

// Amazon SES's events, as SES publishes them to an SNS topic: either the
// identity's notifications ({"notificationType": "Bounce", …}) or a
// configuration set's event publishing ({"eventType": "Bounce", …}); both
// carry the same "mail", "bounce", "complaint" and "delivery" objects.

// The receipts of the SES event `message` (the Message of an SNS
// notification whose signature has been verified: sns.hpp's
// VerifiedSesReceipts is the way in), one per recipient, all with
// mail.messageId as provider_message_id (what SendEmail answered):
//   Delivery    kDelivered for each of delivery.recipients
//   Bounce      kBounced for each of bounce.bouncedRecipients, permanent
//               when bounceType is "Permanent" (not "Transient" or
//               "Undetermined"); detail: the types and diagnosticCode
//   Complaint   kComplained for each of complaint.complainedRecipients
//   DeliveryDelay, and any other event (Send, Reject, Open, Click, …)
//               kOther, for deliveryDelay.delayedRecipients or else each
//               of mail.destination; detail: the event's type (and
//               deliveryDelay.delayType)
// `at` is the event object's timestamp, else mail.timestamp, else
// `fallback_time`. Refusals: kMalformed for text that is not such a JSON
// object (no event type, no mail.messageId), kTooMany past
// kMaxReceiptsPerWebhook. Never throws for what `message` holds. Pure;
// thread-safe.
ReceiptBatch ParseSesEvent(std::string_view message, core::TimePoint fallback_time);

}  // namespace chopar::channels::email::receipts
