#pragma once

#include "channels/sms/delivery_report.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::channels::sms {

// What recording a gateway's report did.
struct SmsReportResult {
  bool final = false;    // delivered or failed (a pending one is not recorded)
  bool matched = false;  // an SMS delivery has that provider id
  bool changed = false;  // this report set provider_status (false for a repeat)
};

// Records a Twilio or Playmobile delivery report on the SMS delivery whose
// provider_message_id is the report's: its first final state becomes the
// delivery's provider_status, "delivered" or "failed" (as WhatsApp's);
// a repeated or later report, a pending one and an unknown id change
// nothing and are not errors (the gateway is answered 200 and does not
// resend). Throws db errors when the database is lost. Thread-safe.
SmsReportResult RecordSmsReport(db::Pool& pool, const SmsDeliveryReport& report,
                                const core::Clock& clock);

}  // namespace chopar::channels::sms
