#include "channels/sms/twilio.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>
#include <vector>

#include "channels/render.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::sms {
namespace {

// Twilio's error codes that say the number itself cannot get an SMS.
bool NumberUnreachable(long long code) {
  return code == 21211      // invalid 'To' phone number
         || code == 21614   // 'To' number is not a valid mobile number
         || code == 21610;  // the recipient unsubscribed (replied STOP)
}

std::string FormBody(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string body;
  for (const auto& [name, value] : fields) {
    if (!body.empty()) body += '&';
    body += name + "=" + core::PercentEncode(value);
  }
  return body;
}

}  // namespace

Outcome TwilioOutcome(const net::HttpResponse& response,
                      std::chrono::system_clock::time_point now) {
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (response.status >= 200 && response.status < 300) {
    const std::string sid = body.is_object() ? body.value("sid", std::string()) : "";
    return sid.empty() ? Outcome::Sent() : Outcome::Sent(sid);
  }
  const long long code = body.is_object() ? body.value("code", -1LL) : -1;
  std::string detail = "twilio " + std::to_string(response.status);
  if (code > 0) detail += " code " + std::to_string(code);
  const std::string message =
      body.is_object() ? body.value("message", std::string()) : response.body;
  if (!message.empty()) detail += ": " + CutCodePoints(message, 200);
  if (auto busy = BusyOutcome(response, detail, now)) return std::move(*busy);
  if (NumberUnreachable(code)) return Outcome::AddressGone(detail);
  if (response.status == 401 || code == 20003) {
    return Outcome::Permanent(detail + " (check the Twilio credentials)");
  }
  return Outcome::Permanent(detail);
}

SmsApi TwilioApi(TwilioSettings twilio) {
  if (twilio.account_sid.empty()) throw std::invalid_argument("twilio account_sid must be set");
  if (twilio.auth_token.empty()) throw std::invalid_argument("twilio auth_token must be set");
  if (twilio.from.empty() && twilio.messaging_service_sid.empty()) {
    throw std::invalid_argument("twilio needs from or messaging_service_sid");
  }
  const std::string url = ApiBaseUrl(twilio.base_url, "twilio base_url") + "/2010-04-01/Accounts/" +
                          core::PercentEncode(twilio.account_sid) + "/Messages.json";
  const std::string authorization =
      "Authorization: Basic " + core::Base64Encode(twilio.account_sid + ":" + twilio.auth_token);
  auto request = [url, authorization, from = twilio.from, service = twilio.messaging_service_sid,
                  callback = twilio.status_callback_url](const Message& m,
                                                         const std::string& text) {
    std::vector<std::pair<std::string, std::string>> fields = {{"To", "+" + PhoneDigits(*m.phone)}};
    if (!from.empty()) fields.emplace_back("From", from);
    if (!service.empty()) fields.emplace_back("MessagingServiceSid", service);
    fields.emplace_back("Body", text);
    if (!callback.empty()) fields.emplace_back("StatusCallback", callback);
    net::HttpRequest call;
    call.url = url;
    call.headers = {authorization, "Accept: application/json",
                    "Content-Type: application/x-www-form-urlencoded"};
    call.body = FormBody(fields);
    return call;
  };
  SmsApi api;
  api.provider = "twilio";
  api.request = std::move(request);
  api.outcome = TwilioOutcome;
  api.timeout = twilio.timeout;
  api.max_in_flight = twilio.max_in_flight;
  return api;
}

}  // namespace chopar::channels::sms
