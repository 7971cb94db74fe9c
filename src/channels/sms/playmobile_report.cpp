#include "channels/sms/playmobile_report.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "channels/sms/eskiz_form.hpp"
#include "core/json.hpp"
#include "core/request_error.hpp"

namespace chopar::channels::sms {
namespace {

using Fields = std::map<std::string, std::string>;

core::RequestError Invalid(const std::string& why) {
  return core::RequestError(core::ErrorCode::kInvalidCallback, "a Playmobile report " + why);
}

// An object's string and integer members; others are not a report's.
Fields FieldsOf(const nlohmann::json& object) {
  Fields fields;
  if (!object.is_object()) throw Invalid("must be a JSON object");
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) fields.emplace(key, value.get<std::string>());
    if (value.is_number_integer()) fields.emplace(key, std::to_string(value.get<long long>()));
  }
  return fields;
}

std::vector<Fields> ReportFields(std::string_view body) {
  const std::size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || (body[start] != '{' && body[start] != '[')) {
    return {ParseFormFields(body)};
  }
  const nlohmann::json json = core::ParseJsonOrDiscarded(body);
  if (json.is_discarded()) throw Invalid("is not valid JSON");
  const nlohmann::json* list = &json;
  if (json.is_object() && json.contains("messages")) list = &json["messages"];
  if (!list->is_array()) return {FieldsOf(*list)};
  std::vector<Fields> reports;
  for (const nlohmann::json& item : *list) reports.push_back(FieldsOf(item));
  return reports;
}

std::string FirstOf(const Fields& fields, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto it = fields.find(name);
    if (it != fields.end() && !it->second.empty()) return it->second;
  }
  return "";
}

SmsDeliveryState StateOf(std::string status) {
  std::transform(status.begin(), status.end(), status.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (status == "delivered") return SmsDeliveryState::kDelivered;
  for (const char* failed : {"undelivered", "notdelivered", "not-delivered", "not_delivered",
                             "failed", "rejected", "expired"}) {
    if (status == failed) return SmsDeliveryState::kFailed;
  }
  return SmsDeliveryState::kPending;
}

}  // namespace

std::vector<SmsDeliveryReport> ParsePlaymobileReports(std::string_view body) {
  std::vector<SmsDeliveryReport> reports;
  for (const Fields& fields : ReportFields(body)) {
    SmsDeliveryReport report;
    report.provider_message_id = FirstOf(fields, {"message-id", "message_id"});
    report.status = FirstOf(fields, {"status"});
    report.error_code = FirstOf(fields, {"error-code"});
    if (report.provider_message_id.empty() || report.status.empty()) {
      throw Invalid("needs message-id and status");
    }
    // SQL text cannot hold NUL: "chopar1a1%00x" must not match "chopar1a1".
    for (const std::string* field :
         {&report.provider_message_id, &report.status, &report.error_code}) {
      if (field->find('\0') != std::string::npos) throw Invalid("must not contain NUL");
    }
    report.state = StateOf(report.status);
    reports.push_back(std::move(report));
  }
  if (reports.empty()) throw Invalid("holds no message");
  return reports;
}

}  // namespace chopar::channels::sms
