#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace chopar::channels::mobile {

// What a mobile push provider's answer means for the delivery; the
// classification of FCM (fcm_message.hpp) and APNs (apns_message.hpp)
// answers. A value for the caller to route on, independent of the delivery
// worker.
enum class PushOutcomeKind {
  kSent,
  // Try again later (after retry_after when set): the provider is busy,
  // throttling or failing for now.
  kRetry,
  // Try again with a new credential: the access token (FCM) or provider
  // token (APNs) was refused as expired or invalid. Invalidate the cached
  // one first (FcmTokenSource::Invalidate, ApnsTokenCache::Invalidate).
  kRetryWithNewToken,
  // The device token no longer reaches an app install (uninstalled, token
  // rotated, or for another app): forget it and do not try again.
  kDeviceGone,
  // The request itself is wrong (payload, configuration): trying again
  // would fail the same way.
  kPermanent,
};

struct PushOutcome {
  PushOutcomeKind kind = PushOutcomeKind::kPermanent;
  // For the delivery's last_error: the HTTP status and the provider's reason
  // (empty when sent).
  std::string detail;
  std::optional<std::chrono::seconds> retry_after;
  // When sent: the provider's id of the message (FCM "name", APNs apns-id).
  std::optional<std::string> message_id;
};

}  // namespace chopar::channels::mobile
