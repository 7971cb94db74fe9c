#include "channels/mobile/fcm_message.hpp"

#include <nlohmann/json.hpp>

#include "core/json.hpp"
#include "core/text.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;

constexpr std::string_view kFcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError";
constexpr std::string_view kBadRequestType = "type.googleapis.com/google.rpc.BadRequest";
constexpr std::size_t kMaxQuoted = 200;

std::string StringAt(const json& object, const char* name) {
  if (!object.is_object()) return {};
  const auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& Details(const json& error) {
  static const json kNone = json::array();
  const auto it = error.find("details");
  return it != error.end() && it->is_array() ? *it : kNone;
}

std::string FcmErrorCode(const json& error) {
  for (const json& detail : Details(error)) {
    if (StringAt(detail, "@type") == kFcmErrorType) return StringAt(detail, "errorCode");
  }
  return {};
}

// INVALID_ARGUMENT covers a bad payload as well as a bad token; only the
// latter means the device is gone.
bool TokenIsTheFault(const json& error) {
  for (const json& detail : Details(error)) {
    if (StringAt(detail, "@type") != kBadRequestType) continue;
    const auto violations = detail.find("fieldViolations");
    if (violations == detail.end() || !violations->is_array()) continue;
    for (const json& violation : *violations) {
      if (StringAt(violation, "field") == "message.token") return true;
    }
  }
  return core::ContainsIgnoringCase(StringAt(error, "message"), "registration token");
}

}  // namespace

std::string FcmSendUrl(std::string_view base_url, std::string_view project_id) {
  return std::string(base_url) + "/v1/projects/" + std::string(project_id) + "/messages:send";
}

std::string FcmSendBody(std::string_view device_token, const PushContent& content) {
  json notification = {{"title", content.title}, {"body", content.body}};
  if (content.image) notification["image"] = *content.image;
  json message = {{"token", device_token}, {"notification", std::move(notification)}};
  if (!content.data.empty()) message["data"] = content.data;

  json android = json::object();
  if (content.collapse_key) android["collapse_key"] = *content.collapse_key;
  if (content.sound) android["notification"] = {{"sound", *content.sound}};
  if (!android.empty()) message["android"] = std::move(android);

  json aps = json::object();
  if (content.badge) aps["badge"] = *content.badge;
  if (content.sound) aps["sound"] = *content.sound;
  if (!aps.empty()) message["apns"] = {{"payload", {{"aps", std::move(aps)}}}};

  return json{{"message", std::move(message)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

PushOutcome ClassifyFcmResponse(const net::HttpResponse& response, core::TimePoint now) {
  const long status = response.status;
  if (status == 0)
    return {PushOutcomeKind::kRetry, "fcm: no answer: " + response.error_message, {}, {}};
  const json body = core::ParseJsonOrDiscarded(response.body);
  if (status == 200) {
    const std::string name = StringAt(body, "name");
    return {PushOutcomeKind::kSent, {}, {}, name.empty() ? std::nullopt : std::optional(name)};
  }

  const json error = body.is_object() && body.contains("error") && body["error"].is_object()
                         ? body["error"]
                         : json::object();
  const std::string code = FcmErrorCode(error);
  const std::string reason = code.empty() ? StringAt(error, "status") : code;
  std::string detail = "fcm: HTTP " + std::to_string(status);
  if (!reason.empty()) detail += " " + reason;
  if (const std::string message = StringAt(error, "message"); !message.empty()) {
    detail += ": " + message.substr(0, kMaxQuoted);
  }
  const auto retry_after = [&]() -> std::optional<std::chrono::seconds> {
    const auto value = response.Header("retry-after");
    return value ? net::ParseRetryAfter(*value, now) : std::nullopt;
  };

  if (code == "UNREGISTERED" || code == "SENDER_ID_MISMATCH")
    return {PushOutcomeKind::kDeviceGone, detail, {}, {}};
  if (code == "INVALID_ARGUMENT") {
    return {TokenIsTheFault(error) ? PushOutcomeKind::kDeviceGone : PushOutcomeKind::kPermanent,
            detail,
            {},
            {}};
  }
  if (code == "THIRD_PARTY_AUTH_ERROR") return {PushOutcomeKind::kPermanent, detail, {}, {}};
  if (code == "QUOTA_EXCEEDED" || code == "UNAVAILABLE" || code == "INTERNAL" || status == 429 ||
      (status >= 500 && status < 600)) {
    return {PushOutcomeKind::kRetry, detail, retry_after(), {}};
  }
  if (status == 401) return {PushOutcomeKind::kRetryWithNewToken, detail, {}, {}};
  return {PushOutcomeKind::kPermanent, detail, {}, {}};
}

}  // namespace chopar::channels::mobile
