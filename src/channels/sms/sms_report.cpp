#include "channels/sms/sms_report.hpp"

#include "channels/sms/queries.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::sms {

SmsReportResult RecordSmsReport(db::Pool& pool, const SmsDeliveryReport& report,
                                const core::Clock& clock) {
  SmsReportResult result;
  if (report.state == SmsDeliveryState::kPending) return result;
  result.final = true;
  const char* status = report.state == SmsDeliveryState::kDelivered ? "delivered" : "failed";
  auto conn = pool.Acquire();
  const auto rows = conn->Exec(queries::kSmsRecordReport, report.provider_message_id,
                               std::string(status), core::FormatRfc3339(clock.Now()));
  result.matched = rows.Int(0, "matched") > 0;
  result.changed = rows.Int(0, "changed") > 0;
  return result;
}

}  // namespace chopar::channels::sms
