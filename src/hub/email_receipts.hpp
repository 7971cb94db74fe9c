#pragma once

#include <span>
#include <string>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "hub/user_service.hpp"

namespace chopar::hub {

// One email receipt a provider's webhook reported, once its signature was
// verified (channels/email/receipts).
struct EmailReceiptEvent {
  std::string provider;             // "ses", "sendgrid", "mailgun", "postmark"
  std::string provider_message_id;  // the id the send answered, as the delivery keeps it
  std::string status;               // "delivered", "bounced" or "complained"
  bool permanent = false;           // a hard bounce
  std::string recipient;            // the address the provider names
  std::string detail;               // the bounce's diagnostic, short
};

struct EmailReceiptsRecorded {
  int recorded = 0;      // receipts that moved their delivery's provider_status
  int unmatched = 0;     // no email delivery has that provider message id
  int suppressed = 0;    // addresses newly suppressed by a hard bounce
  int unsubscribed = 0;  // users turned off email for a category (or type) by a complaint
};

// Records `receipts` (docs/api.md "Email receipts"): each moves its email
// delivery's provider_status forward only (delivered, then bounced, then
// complained; a repeat or an older one changes nothing); a hard bounce of a
// delivery of ours suppresses its address (channel email, reason "bounce"),
// so the next delivery to it is skipped; a complaint turns email off for
// the notification's category — or its type, without one — in the user's
// preferences, as the one-click unsubscribe link does (RFC 8058). Each
// receipt in its own transaction: a replayed batch changes nothing. Throws
// db errors when the database is lost. Thread-safe.
EmailReceiptsRecorded RecordEmailReceipts(db::Pool& pool, UserService& users,
                                          std::span<const EmailReceiptEvent> receipts,
                                          const core::Clock& clock);

}  // namespace chopar::hub
