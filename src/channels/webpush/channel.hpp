#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "channels/channel.hpp"
#include "channels/webpush/settings.hpp"
#include "channels/webpush/vapid.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"
#include "net/in_flight_limit.hpp"

namespace chopar::channels::webpush {

// The Web Push channel (RFC 8030 with VAPID, RFC 8292, and aes128gcm payload
// encryption, RFC 8291). For each message: the payload of RenderPushPayload
// (its body shortened if the JSON would not fit one 4096-octet record),
// encrypted separately for each of the message's push targets with a fresh
// ephemeral key and salt, and one POST per target. All targets of all
// messages of a batch go out in one net::HttpClient::PerformAll,
// concurrently, at most `max_in_flight` at once over every Send of the
// channel. Each request has its own timeout, running from its own start: an
// endpoint that never answers costs its own request's timeout and holds one
// slot, and neither delays the start of the others nor lets their timeouts
// run while they wait for a slot. SendReporting reports a message's outcome
// as soon as its own targets have answered, so a silent endpoint holds back
// only the outcome of the message it belongs to.
// Headers: TTL, Urgency (high for critical messages, normal otherwise),
// Content-Encoding: aes128gcm, Content-Type: application/octet-stream,
// Authorization: vapid t=…, k=… (one cached token per push service origin).
//
// Per target: any 2xx → accepted (the Location header is the provider id);
// 404/410 → that subscription is gone; 413 → permanent; 429 → retry after
// Retry-After; 5xx, timeouts and network errors → retry (Retry-After honoured
// when given); other 4xx and anything else → permanent; an endpoint that is
// not an absolute https URL (http only when allowed) or keys that do not
// decode → permanent without a request.
// Per message: sent if any target accepted it; address gone if every target
// is gone (or there are none); retry if any target may succeed later
// (retry_after = the longest delay a push service asked for); permanent
// otherwise. Gone subscriptions are listed in gone_push_subscriptions
// whatever the kind, so one gone phone does not fail the laptop.
//
// Thread-safe: Send() may run on several worker threads at once.
class WebPushChannel final : public Channel {
 public:
  // `http` and `clock` are shared and must outlive the channel. The clock
  // dates the VAPID tokens (their `exp`) and is what an HTTP-date
  // Retry-After counts from. Throws std::invalid_argument for bad VAPID keys
  // or subject (see VapidSigner), a non-positive ttl_seconds or a
  // max_in_flight outside 1..kMaxPushInFlight.
  WebPushChannel(WebPushSettings settings, net::HttpClient& http, const core::Clock& clock);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  void SendReporting(std::span<const Message> messages, const OutcomeReport& report) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "webpush"; }

  [[nodiscard]] const WebPushSettings& settings() const { return settings_; }

 private:
  const WebPushSettings settings_;
  net::HttpClient& http_;
  const core::Clock& clock_;
  VapidSigner vapid_;
  net::InFlightLimit in_flight_;  // max_in_flight, shared by every Send
};

// The plaintext pushed for a message: RenderPushPayload as JSON, with the
// body cut (on a code point boundary, ending in "…") until it fits one
// record (kPushMaxPlaintext bytes).
std::string WebPushPlaintext(const Message& message, std::string_view public_url);

}  // namespace chopar::channels::webpush
