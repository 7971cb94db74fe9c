#include "channels/mobile/apns_message.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/encoding.hpp"
#include "core/json.hpp"

namespace chopar::channels::mobile {
namespace {

using nlohmann::json;

constexpr std::size_t kMinTokenHex = 64;
constexpr std::size_t kMaxTokenHex = 200;
constexpr std::string_view kEllipsis = "…";

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string Sha256Hex(std::string_view text) { return core::HexEncode(core::Sha256(text)); }

// The first `bytes` of `text`, moved back to the start of a UTF-8 code
// point (continuation bytes are 10xxxxxx), then "…".
std::string CutAt(const std::string& text, std::size_t bytes) {
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return text.substr(0, bytes) + std::string(kEllipsis);
}

std::string Dump(const PushContent& content, const std::string& body) {
  json aps = {{"alert", {{"title", content.title}, {"body", body}}}};
  if (content.badge) aps["badge"] = *content.badge;
  if (content.sound) aps["sound"] = *content.sound;
  if (content.image) aps["mutable-content"] = 1;
  json payload = json::object();
  for (const auto& [name, value] : content.data) {
    if (name != "aps") payload[name] = value;
  }
  payload["aps"] = std::move(aps);
  if (content.image) payload["image"] = *content.image;
  return payload.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

bool IsApnsDeviceToken(std::string_view token) {
  return token.size() >= kMinTokenHex && token.size() <= kMaxTokenHex && token.size() % 2 == 0 &&
         std::all_of(token.begin(), token.end(), IsHex);
}

std::string ApnsCollapseId(std::string_view dedup_key) {
  const bool printable =
      std::all_of(dedup_key.begin(), dedup_key.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
  if (printable && dedup_key.size() <= kApnsMaxCollapseId) return std::string(dedup_key);
  return Sha256Hex(dedup_key);
}

std::string ApnsPayload(const PushContent& content) {
  std::string payload = Dump(content, content.body);
  if (payload.size() <= kApnsMaxPayload) return payload;
  // The longest cut that fits, found by bisection: escapes make the JSON
  // size of a text more than its byte count, so no one subtraction is exact.
  std::size_t fits = 0;
  std::size_t too_long = content.body.size();
  payload = Dump(content, CutAt(content.body, 0));
  if (payload.size() > kApnsMaxPayload) {
    throw std::invalid_argument("APNs payload exceeds " + std::to_string(kApnsMaxPayload) +
                                " bytes even without a body (title or data too large)");
  }
  while (too_long - fits > 1) {
    const std::size_t middle = fits + (too_long - fits) / 2;
    std::string candidate = Dump(content, CutAt(content.body, middle));
    if (candidate.size() <= kApnsMaxPayload) {
      fits = middle;
      payload = std::move(candidate);
    } else {
      too_long = middle;
    }
  }
  return payload;
}

net::HttpRequest BuildApnsRequest(std::string_view base_url, std::string_view device_token,
                                  const PushContent& content, const ApnsOptions& options,
                                  std::string_view provider_token) {
  if (!IsApnsDeviceToken(device_token)) throw std::invalid_argument("not an APNs device token");
  if (options.topic.empty()) throw std::invalid_argument("APNs topic (bundle id) is empty");
  net::HttpRequest request;
  request.method = "POST";
  request.url = std::string(base_url) + "/3/device/" + std::string(device_token);
  request.headers = {
      "authorization: bearer " + std::string(provider_token),
      "apns-push-type: alert",
      std::string("apns-priority: ") + (options.critical ? "10" : "5"),
      "apns-topic: " + options.topic,
      "apns-expiration: " + std::to_string(options.expiration),
      // libcurl would otherwise label the body as a form.
      "content-type: application/json",
  };
  if (options.dedup_key)
    request.headers.push_back("apns-collapse-id: " + ApnsCollapseId(*options.dedup_key));
  request.body = ApnsPayload(content);
  return request;
}

PushOutcome ClassifyApnsResponse(const net::HttpResponse& response, core::TimePoint now) {
  const long status = response.status;
  if (status == 0)
    return {PushOutcomeKind::kRetry, "apns: no answer: " + response.error_message, {}, {}};
  if (status == 200) return {PushOutcomeKind::kSent, {}, {}, response.Header("apns-id")};

  const json body = core::ParseJsonOrDiscarded(response.body);
  std::string reason;
  if (body.is_object() && body.contains("reason") && body["reason"].is_string()) {
    reason = body["reason"].get<std::string>().substr(0, 100);
  }
  std::string detail = "apns: HTTP " + std::to_string(status);
  if (!reason.empty()) detail += " " + reason;

  if (status == 410 ||
      (status == 400 && (reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic"))) {
    return {PushOutcomeKind::kDeviceGone, detail, {}, {}};
  }
  if (status == 429 || status == 500 || status == 503) {
    const auto value = response.Header("retry-after");
    return {PushOutcomeKind::kRetry,
            detail,
            value ? net::ParseRetryAfter(*value, now) : std::nullopt,
            {}};
  }
  if (status == 403 && (reason == "ExpiredProviderToken" || reason == "InvalidProviderToken")) {
    return {PushOutcomeKind::kRetryWithNewToken, detail, {}, {}};
  }
  return {PushOutcomeKind::kPermanent, detail, {}, {}};
}

}  // namespace chopar::channels::mobile
