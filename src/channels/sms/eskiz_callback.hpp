#pragma once

#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::channels::sms {

// Eskiz's final delivery statuses, the ones recorded in
// deliveries.provider_status: DELIVRD, UNDELIV, REJECTD, EXPIRED.
bool IsFinalEskizStatus(std::string_view status);

// The two fields of a delivery report that matter.
struct EskizReport {
  std::string provider_message_id;  // "request_id", else "id"
  std::string status;               // "status", as sent
};

// Reads a delivery report body: JSON (an object; string or integer values),
// multipart/form-data or application/x-www-form-urlencoded. Throws
// core::RequestError kInvalidCallback when it names no id or no status, or
// either holds NUL. Pure; thread-safe.
EskizReport ParseEskizReport(std::string_view body);

struct EskizCallbackResult {
  std::string provider_message_id;  // Eskiz's id the report is about
  std::string status;               // as Eskiz sent it
  bool final = false;    // one of the four final statuses (others are ignored)
  bool matched = false;  // an SMS delivery has that id
  bool changed = false;  // this report set provider_status (false for a repeat)
};

// Records an Eskiz delivery report — the body Eskiz POSTs to callback_url
// (the lead's route POST /v1/sms/eskiz/callback/<secret>, the secret checked
// before calling this). The body may be JSON, multipart/form-data or
// application/x-www-form-urlencoded; the SMS is named by "request_id" (the
// "id" that the send returned) or else "id", its status by "status".
//
// Idempotent: the first final status for an id is stored on its delivery
// (provider_status, updated_at = clock.Now()); a repeated report, a later
// different one, a non-final status (e.g. TRANSMTD) and an unknown id change
// nothing and are not errors (answer 200 so Eskiz does not resend them).
// Throws core::RequestError kInvalidCallback when the body names no id or
// no status; db errors when the database is lost. Thread-safe.
EskizCallbackResult RecordEskizCallback(db::Pool& pool, std::string_view body, const core::Clock& clock);

}  // namespace chopar::channels::sms
