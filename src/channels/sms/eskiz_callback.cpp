#include "channels/sms/eskiz_callback.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "channels/sms/eskiz_form.hpp"
#include "channels/sms/queries.hpp"
#include "core/json.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::sms {
namespace {

std::map<std::string, std::string> CallbackFields(std::string_view body) {
  std::size_t start = body.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && body[start] == '{') {
    std::map<std::string, std::string> fields;
    const auto json = core::ParseJsonOrDiscarded(body);
    if (json.is_discarded() || !json.is_object()) return fields;
    for (const auto& [key, value] : json.items()) {
      if (value.is_string()) fields.emplace(key, value.get<std::string>());
      if (value.is_number_integer()) fields.emplace(key, std::to_string(value.get<long long>()));
    }
    return fields;
  }
  return ParseFormFields(body);
}

}  // namespace

bool IsFinalEskizStatus(std::string_view status) {
  return status == "DELIVRD" || status == "UNDELIV" || status == "REJECTD" || status == "EXPIRED";
}

EskizReport ParseEskizReport(std::string_view body) {
  const auto fields = CallbackFields(body);
  EskizReport report;
  for (const char* key : {"request_id", "id"}) {
    const auto it = fields.find(key);
    if (it != fields.end() && !it->second.empty()) {
      report.provider_message_id = it->second;
      break;
    }
  }
  if (const auto it = fields.find("status"); it != fields.end()) report.status = it->second;
  if (report.provider_message_id.empty() || report.status.empty()) {
    throw core::RequestError(core::ErrorCode::kInvalidCallback,
                             "an Eskiz delivery report needs request_id (or id) and status");
  }
  // SQL text cannot hold NUL: "id%00x" must not match the SMS "id".
  if (report.provider_message_id.find('\0') != std::string::npos ||
      report.status.find('\0') != std::string::npos) {
    throw core::RequestError(core::ErrorCode::kInvalidCallback,
                             "an Eskiz delivery report must not contain NUL");
  }
  return report;
}

EskizCallbackResult RecordEskizCallback(db::Pool& pool, std::string_view body,
                                        const core::Clock& clock) {
  const EskizReport report = ParseEskizReport(body);
  EskizCallbackResult result;
  result.provider_message_id = report.provider_message_id;
  result.status = report.status;
  result.final = IsFinalEskizStatus(result.status);
  if (!result.final) return result;
  auto conn = pool.Acquire();
  const auto rows = conn->Exec(queries::kSmsRecordReport, result.provider_message_id, result.status,
                               core::FormatRfc3339(clock.Now()));
  result.matched = rows.Int(0, "matched") > 0;
  result.changed = rows.Int(0, "changed") > 0;
  return result;
}

}  // namespace chopar::channels::sms
