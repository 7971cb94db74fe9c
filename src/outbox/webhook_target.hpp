#pragma once

#include <chrono>
#include <string>

#include "core/clock.hpp"
#include "net/http_client.hpp"
#include "net/in_flight_limit.hpp"
#include "outbox/settings.hpp"
#include "outbox/target.hpp"

namespace chopar::outbox {

// Publishes each event as a Standard Webhooks POST to one URL: the body is
// EventBody(event); `webhook-id` is the event id (the same on every retry,
// so receivers deduplicate on it), `webhook-timestamp` the attempt's Unix
// seconds from `clock`, `webhook-signature` "v1,<base64 HMAC-SHA256 of
// id.timestamp.body>" under the `whsec_` secret. A 2xx answer within the
// timeout is success; anything else (another status, no answer, a network
// error) fails that event alone, with a Retry-After honoured. The events of
// a batch are sent concurrently (libcurl multi: keep-alive connections,
// HTTP/2 where offered), at most `max_in_flight` at once over every Publish
// call on this object — every relay loop of the process shares it (one
// TargetSet per process). The others wait for a free slot before they
// start, and each request's timeout runs from its own start: a slow
// receiver slows the relay down rather than timing out requests it has
// already taken (which the relay would send again). A request still
// waiting one timeout after Publish began is not sent: Unavailable with a
// retry_after of 0 (due again at once), so Publish returns within twice
// the timeout whatever the receiver does.
//
// The HTTP client and clock must outlive the target. Thread-safe.
class WebhookTarget final : public Target {
 public:
  // `settings` must be a valid webhook target (ValidateTargets); throws
  // std::invalid_argument for a secret that is not "whsec_<base64>" or a
  // max_in_flight below 1.
  WebhookTarget(const TargetSettings& settings, net::HttpClient& http, const core::Clock& clock);

  std::vector<PublishOutcome> Publish(std::span<const Event* const> events) override;

 private:
  const std::string url_;
  const std::string key_;
  const std::chrono::milliseconds timeout_;
  net::HttpClient& http_;
  const core::Clock& clock_;
  net::InFlightLimit in_flight_;  // max_in_flight slots, shared by every caller of Publish
};

}  // namespace chopar::outbox
