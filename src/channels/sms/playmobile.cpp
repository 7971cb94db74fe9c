#include "channels/sms/playmobile.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "channels/render.hpp"
#include "core/encoding.hpp"

namespace chopar::channels::sms {
namespace {

constexpr long long kInternalError = 100;
constexpr long long kAccountLocked = 102;

// Playmobile's error-code, a number or a numeric string; -1 without one.
long long ErrorCode(const nlohmann::json& body) {
  if (!body.is_object() || !body.contains("error-code")) return -1;
  const nlohmann::json& code = body["error-code"];
  if (code.is_number_integer()) return code.get<long long>();
  if (code.is_string()) {
    try {
      return std::stoll(code.get<std::string>());
    } catch (const std::exception&) {
      return -1;
    }
  }
  return -1;
}

}  // namespace

std::string PlaymobileMessageId(const Message& message) {
  return "chopar" + std::to_string(message.delivery_id) + "a" + std::to_string(message.attempt);
}

Outcome PlaymobileOutcome(const net::HttpResponse& response,
                          std::chrono::system_clock::time_point now) {
  // The id is the one chopar chose: HttpSmsChannel puts it on the outcome.
  if (response.status >= 200 && response.status < 300) return Outcome::Sent();
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  const long long code = ErrorCode(body);
  std::string detail = "playmobile " + std::to_string(response.status);
  if (code >= 0) detail += " code " + std::to_string(code);
  const std::string description = body.is_object() && body.contains("error-description") &&
                                          body["error-description"].is_string()
                                      ? body["error-description"].get<std::string>()
                                      : response.body;
  if (!description.empty()) detail += ": " + CutCodePoints(description, 200);
  if (code == kInternalError) return Outcome::Retry(detail);
  if (auto busy = BusyOutcome(response, detail, now)) return std::move(*busy);
  if (response.status == 401 || response.status == 403) {
    return Outcome::Permanent(detail + " (check the Playmobile login)");
  }
  if (code == kAccountLocked) return Outcome::Permanent(detail + " (check the Playmobile account)");
  return Outcome::Permanent(detail);
}

SmsApi PlaymobileApi(PlaymobileSettings playmobile) {
  if (playmobile.login.empty()) throw std::invalid_argument("playmobile login must be set");
  if (playmobile.password.empty()) throw std::invalid_argument("playmobile password must be set");
  if (playmobile.originator.empty()) {
    throw std::invalid_argument("playmobile originator must be set (\"3700\")");
  }
  const std::string url =
      ApiBaseUrl(playmobile.base_url, "playmobile base_url") + "/broker-api/send";
  const std::string authorization =
      "Authorization: Basic " + core::Base64Encode(playmobile.login + ":" + playmobile.password);
  auto request = [url, authorization, originator = playmobile.originator](const Message& m,
                                                                          const std::string& text) {
    nlohmann::json message = nlohmann::json::object();
    message["recipient"] = PhoneDigits(*m.phone);
    message["message-id"] = PlaymobileMessageId(m);
    message["sms"] = {{"originator", originator}, {"content", {{"text", text}}}};
    nlohmann::json body = nlohmann::json::object();
    body["messages"] = nlohmann::json::array({message});
    net::HttpRequest call;
    call.url = url;
    call.headers = {authorization, "Content-Type: application/json; charset=utf-8"};
    call.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return call;
  };
  SmsApi api;
  api.provider = "playmobile";
  api.request = std::move(request);
  api.outcome = PlaymobileOutcome;
  api.message_id = PlaymobileMessageId;
  api.timeout = playmobile.timeout;
  api.max_in_flight = playmobile.max_in_flight;
  return api;
}

}  // namespace chopar::channels::sms
