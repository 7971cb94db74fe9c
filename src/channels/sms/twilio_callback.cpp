#include "channels/sms/twilio_callback.hpp"

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::channels::sms {
namespace {

// The first non-empty value of the first of `names` the form has.
std::string FirstOf(FormParams params, std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    for (const auto& [key, value] : params) {
      if (key == name && !value.empty()) return value;
    }
  }
  return "";
}

SmsDeliveryState StateOf(std::string_view status) {
  if (status == "delivered" || status == "read") return SmsDeliveryState::kDelivered;
  if (status == "undelivered" || status == "failed" || status == "canceled") {
    return SmsDeliveryState::kFailed;
  }
  return SmsDeliveryState::kPending;
}

}  // namespace

std::string TwilioSignature(std::string_view auth_token, std::string_view url, FormParams params) {
  std::vector<std::pair<std::string, std::string>> sorted(params.begin(), params.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string data(url);
  for (const auto& [name, value] : sorted) data += name + value;
  return core::Base64Encode(core::HmacSha1(auth_token, data));
}

bool TwilioSignatureValid(std::string_view auth_token, std::string_view url, FormParams params,
                          std::string_view signature) {
  if (signature.empty()) return false;
  return core::ConstantTimeEquals(TwilioSignature(auth_token, url, params), signature);
}

SmsDeliveryReport ParseTwilioStatusCallback(FormParams params) {
  SmsDeliveryReport report;
  report.provider_message_id = FirstOf(params, {"MessageSid", "SmsSid"});
  report.status = FirstOf(params, {"MessageStatus", "SmsStatus"});
  report.error_code = FirstOf(params, {"ErrorCode"});
  if (report.provider_message_id.empty() || report.status.empty()) {
    throw core::RequestError(core::ErrorCode::kInvalidCallback,
                             "a Twilio status callback needs MessageSid and MessageStatus");
  }
  // SQL text cannot hold NUL: "SM1%00x" must not match the SMS "SM1".
  for (const std::string* field :
       {&report.provider_message_id, &report.status, &report.error_code}) {
    if (field->find('\0') != std::string::npos) {
      throw core::RequestError(core::ErrorCode::kInvalidCallback,
                               "a Twilio status callback must not contain NUL");
    }
  }
  report.state = StateOf(report.status);
  return report;
}

}  // namespace chopar::channels::sms
