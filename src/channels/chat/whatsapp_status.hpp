#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::channels::chat {

// WhatsApp's status webhooks (docs/api.md "WhatsApp"): Meta POSTs what
// became of each message — sent, delivered, read, failed — to the webhook
// URL of the app, signed with the app secret.

// Whether `signature_header` (X-Hub-Signature-256: "sha256=<hex>") is the
// HMAC-SHA256 of the raw `body` under `app_secret`. Constant time; false
// for an empty secret, a missing prefix or bad hex. Pure.
bool WhatsAppSignatureMatches(std::string_view app_secret, std::string_view body,
                              std::string_view signature_header);

// One status of a message.
struct WhatsAppStatus {
  std::string message_id;  // the wamid the send answered
  std::string status;      // "sent", "delivered", "read" or "failed"
  std::string error;       // for "failed": Meta's code and title
};

// The most statuses one webhook may carry; Meta sends far fewer.
inline constexpr std::size_t kMaxStatusesPerWebhook = 1000;

// The statuses of a webhook body ({"object": "whatsapp_business_account",
// "entry": [{"changes": [{"value": {"statuses": [...]}}]}]}), in order.
// Changes without statuses (incoming messages) and statuses other than the
// four are skipped. Throws core::RequestError kInvalidJson for a body that
// is not such an object, kInvalidCallback for a status without an id or
// for more than kMaxStatusesPerWebhook. Pure.
std::vector<WhatsAppStatus> ParseWhatsAppStatuses(std::string_view body);

struct WhatsAppStatusResult {
  std::size_t statuses = 0;  // in the webhook
  std::size_t matched = 0;   // naming a WhatsApp delivery
  std::size_t changed = 0;   // that moved its provider_status on
};

// Stores each status on the WhatsApp delivery whose provider_message_id is
// its wamid, in one statement. A status only moves forward — sent, then
// delivered, then read; failed after any of them — so a webhook repeated
// or arriving out of order changes nothing; a failed one also sets
// last_error. The delivery's own status stays what it is (sent: chopar
// handed the message over). Unknown ids are no error: Meta would resend.
// Throws db errors when the database is lost. Thread-safe.
WhatsAppStatusResult RecordWhatsAppStatuses(db::Pool& pool,
                                            const std::vector<WhatsAppStatus>& statuses,
                                            const core::Clock& clock);

}  // namespace chopar::channels::chat
