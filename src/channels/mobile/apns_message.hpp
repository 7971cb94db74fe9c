#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "channels/mobile/push_content.hpp"
#include "channels/mobile/push_outcome.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::mobile {

// APNs (HTTP/2 provider API): the request that sends one alert to one
// device, and what its answer means. Pure and thread-safe.

inline constexpr std::string_view kApnsProductionUrl = "https://api.push.apple.com";
inline constexpr std::string_view kApnsSandboxUrl = "https://api.sandbox.push.apple.com";
inline constexpr std::size_t kApnsMaxPayload = 4096;   // bytes, Apple's limit for alerts
inline constexpr std::size_t kApnsMaxCollapseId = 64;  // bytes

struct ApnsOptions {
  std::string topic;  // the app's bundle id
  // Priority 10 (deliver now) rather than 5 (when the device's power allows).
  bool critical = false;
  // Notifications with the same key replace each other on the device; none:
  // no apns-collapse-id header.
  std::optional<std::string> dedup_key;
  // Until when (unix seconds) APNs keeps trying an offline device; 0: one
  // attempt, not stored.
  std::int64_t expiration = 0;
};

// Whether `token` looks like an APNs device token: an even number (64 to
// 200) of hex digits — so it can go into the request path as it is.
bool IsApnsDeviceToken(std::string_view token);

// The apns-collapse-id for a dedup key: the key itself when it is at most
// kApnsMaxCollapseId bytes of printable ASCII, otherwise the hex SHA-256 of
// it (64 bytes) — distinct keys stay distinct, and no byte that a header
// cannot carry gets into one.
std::string ApnsCollapseId(std::string_view dedup_key);

// The JSON payload: {"aps":{"alert":{"title":…,"body":…},"badge"?:…,
// "sound"?:…,"mutable-content"?:1}, <data entries at the top level>,
// "image"?:…}. With an image, mutable-content is 1 (the app's notification
// service extension fetches it) and "image" holds its URL. A data entry
// named "aps" is left out (it would replace Apple's dictionary); the image
// wins over a data entry named "image". When the payload exceeds
// kApnsMaxPayload, the body text is cut to its longest start that fits (on
// a UTF-8 code point boundary, ending in "…"). Throws std::invalid_argument when even an
// empty body does not fit (the title or data are too large). Invalid UTF-8
// is replaced (U+FFFD).
std::string ApnsPayload(const PushContent& content);

// The POST to base_url + "/3/device/<device_token>" with the headers
// authorization: bearer <provider_token>, apns-push-type: alert,
// apns-priority: 10 or 5, apns-topic, apns-collapse-id (when a dedup key is
// given), apns-expiration and content-type: application/json, and
// ApnsPayload as the body. Throws std::invalid_argument for a token that is
// not IsApnsDeviceToken, an empty topic, or a payload that cannot fit.
net::HttpRequest BuildApnsRequest(std::string_view base_url, std::string_view device_token,
                                  const PushContent& content, const ApnsOptions& options,
                                  std::string_view provider_token);

// What APNs' answer means, the reason read from the body {"reason":…}
// (`now`: when it came, the base of an HTTP-date Retry-After):
//   200                                         kSent, message_id = apns-id header
//   410 (any reason, e.g. Unregistered)          kDeviceGone
//   400 BadDeviceToken, DeviceTokenNotForTopic   kDeviceGone
//   429 (TooManyRequests, …), 500, 503           kRetry, retry_after from Retry-After
//   403 ExpiredProviderToken, InvalidProviderToken  kRetryWithNewToken
//   anything else                                kPermanent
// detail holds "apns: HTTP <status> <reason>". A response without an HTTP
// answer (status 0) is kRetry; a caller that must not repeat a send that
// may have arrived checks channels::UnansweredHttpOutcome first.
[[nodiscard]] PushOutcome ClassifyApnsResponse(const net::HttpResponse& response,
                                               core::TimePoint now);

}  // namespace chopar::channels::mobile
