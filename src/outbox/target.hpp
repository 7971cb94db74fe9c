#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "outbox/event.hpp"

namespace chopar::outbox {

// What publishing one event to one target came to.
struct [[nodiscard]] PublishOutcome {
  bool ok = false;
  std::string error;  // why not, when !ok: stored as the event's last_error
  // The failure is the target's, not the event's: it did not answer in
  // time, could not be reached, or said it is overloaded (HTTP 5xx / 429).
  // A call whose every outcome says so pauses the target (see Relay).
  bool unavailable = false;
  // The target asked to wait this long before the next attempt (HTTP
  // Retry-After); it wins over the relay's backoff.
  std::optional<std::chrono::seconds> retry_after;

  static PublishOutcome Ok() { return {true, {}, false, std::nullopt}; }
  // The event itself was refused (a 4xx, an invalid notification).
  static PublishOutcome Failed(std::string error) {
    return {false, std::move(error), false, std::nullopt};
  }
  static PublishOutcome Unavailable(
      std::string error, std::optional<std::chrono::seconds> retry_after = std::nullopt) {
    return {false, std::move(error), true, retry_after};
  }
};

// Where a relay publishes events: a webhook, a NATS JetStream subject,
// chopar's own notification pipeline — or anything added later (a Redis
// stream, a RabbitMQ exchange) without touching the relay.
//
// The relay calls Publish with the events of one claimed batch that this
// target should receive, in claim order, while it holds the batch's row
// locks; it marks an event dispatched only when every target it routes to
// returned ok. So a target is told about an event at least once, possibly
// more (a relay that dies after publishing publishes again): a target makes
// repeats harmless with the event id (webhook-id, Nats-Msg-Id, a dedup key).
//
// Publish returns exactly one outcome per event, in order, and reports
// failures as outcomes; an exception counts as a failure of every event
// given (as Unavailable). It must return within a bound its configuration
// sets, whatever the remote side does: its timeout (the webhook: twice its
// timeout, one to wait for a free request slot and one for the request).
// Implementations are thread-safe: relays for several sources,
// and several loops of one relay, may call Publish at once.
class Target {
 public:
  virtual ~Target() = default;
  virtual std::vector<PublishOutcome> Publish(std::span<const Event* const> events) = 0;
};

}  // namespace chopar::outbox
