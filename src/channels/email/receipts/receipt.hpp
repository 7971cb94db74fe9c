#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"

namespace chopar::channels::email::receipts {

// What an email provider's event webhook says became of a message, in one
// form for every provider (sns.hpp for Amazon SES, sendgrid_events.hpp,
// mailgun_events.hpp, postmark_events.hpp).

enum class ReceiptKind {
  kDelivered,   // the receiving server accepted the message
  kBounced,     // the message will not be delivered (see `permanent`)
  kComplained,  // the recipient marked it as spam
  kOther,       // anything else the provider reports (opened, deferred, …)
};

// "delivered", "bounced", "complained" or "other": for logs and metrics.
std::string_view ReceiptKindName(ReceiptKind kind);

struct EmailReceipt {
  // The EmailApi's name of the provider: "ses", "sendgrid", "mailgun" or
  // "postmark".
  std::string provider;
  // The message's id in the form chopar stored it from the provider's send
  // answer (deliveries.provider_message_id), so it matches unchanged.
  std::string provider_message_id;
  ReceiptKind kind = ReceiptKind::kOther;
  // For kBounced: the address will not take mail (a hard bounce); false
  // for a soft bounce, a block or a deferral the provider may get past.
  bool permanent = false;
  std::string recipient;  // the address the receipt is about, as given
  std::string detail;     // the provider's reason, at most kMaxDetailBytes
  core::TimePoint at;     // when it happened, by the provider's clock

  bool operator==(const EmailReceipt&) const = default;
};

// The largest webhook body read; a larger one is refused unread. SendGrid
// posts its batches when they reach 768 KB.
inline constexpr std::size_t kMaxReceiptBodyBytes = 1024 * 1024;

// The most receipts one webhook may yield. A SendGrid batch of 768 KB holds
// up to about 4,000 events of some 200 bytes; a bound below that would
// refuse real batches, which SendGrid retries for a day and then drops.
inline constexpr std::size_t kMaxReceiptsPerWebhook = 5000;

// The longest EmailReceipt::detail, in bytes (cut on a UTF-8 boundary).
inline constexpr std::size_t kMaxDetailBytes = 300;

// Why a webhook was refused. Each maps to one answer (a suggestion for the
// caller's one place that maps them): kTooLarge and kTooMany 413,
// kMalformed 400, kUnauthenticated and kStale 401. A signed body refused as
// kMalformed will not get better when the provider sends it again.
enum class Refusal {
  kNone,
  kTooLarge,         // the body is over kMaxReceiptBodyBytes
  kMalformed,        // not the provider's format
  kUnauthenticated,  // the signature, the credentials or the sender do not hold
  kStale,            // the signed time is outside the replay window
  kTooMany,          // over kMaxReceiptsPerWebhook receipts
};

// "too_large", "malformed", "unauthenticated", "stale", "too_many" ("" for
// kNone): for logs and metrics.
std::string_view RefusalName(Refusal refusal);

// The receipts of one verified webhook, or why it was refused (then no
// receipts). Never holds a secret; `reason` never quotes the body.
struct [[nodiscard]] ReceiptBatch {
  Refusal refusal = Refusal::kNone;
  std::string reason;  // for the log: what was wrong, when refused
  std::vector<EmailReceipt> receipts;
  // Events left out because they name no message (no id to match).
  std::size_t skipped = 0;
  // What identifies this signed request, for a caller that remembers what
  // it saw within the replay window: Mailgun's token, the SNS MessageId,
  // SendGrid's signature; empty for Postmark, whose requests carry none.
  std::string replay_key;

  [[nodiscard]] bool ok() const { return refusal == Refusal::kNone; }

  static ReceiptBatch Refused(Refusal refusal, std::string reason);
  // Refused as kTooLarge: `what` ("the SendGrid webhook") is over
  // kMaxReceiptBodyBytes.
  static ReceiptBatch TooLarge(std::string_view what);

  // Appends `receipt`; false, and the batch refused as kTooMany with its
  // receipts dropped, when it already holds kMaxReceiptsPerWebhook.
  [[nodiscard]] bool Add(EmailReceipt receipt);
};

// `text` cut to at most kMaxDetailBytes on a UTF-8 boundary, each control
// character (line breaks, NUL) a space: what EmailReceipt::detail holds.
std::string ShortDetail(std::string_view text);

}  // namespace chopar::channels::email::receipts
