#pragma once

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "mustache/text.hpp"
#include "outbox/settings.hpp"
#include "outbox/target.hpp"

namespace chopar::outbox {

// Turns each event into a chopar notification (the in-app row and its
// deliveries, through hub::NotifyService::NotifyIn): for payload.user_id
// when it is an integer, else the event's user_id; of the event's type;
// title, body and link rendered from the target's Mustache templates over
// {id, type, user_id, created_at, payload} (plain text: nothing is
// HTML-escaped); data {"event_id": …, "payload": …}; and dedup_key
// "event:<event id>", so an event the relay publishes again creates no
// second notification — exactly once. The notification is validated as
// POST /v1/notifications validates a request: an event without a user, a
// type that is not a notification type (^[a-z]+(\.[a-z_]+)*$), an empty
// title, an external link or an unknown user fails that event alone, with
// the reason, as does a template whose render passes the in-app title's
// (title, link) or body's output limit or the steps a render may take
// (mustache::RenderBudget).
//
// A batch is one transaction on `pool` (chopar's own database); the
// notifications it created are counted in `metrics`
// (chopar_notifications_created_total). The pool, clock and registry must
// outlive the target. Thread-safe.
class NotifyTarget final : public Target {
 public:
  // `settings` must be a valid notify target (ValidateTargets); throws
  // std::invalid_argument naming the template that does not parse.
  NotifyTarget(const TargetSettings& settings, db::Pool& pool, const core::Clock& clock,
               core::MetricsRegistry& metrics);

  std::vector<PublishOutcome> Publish(std::span<const Event* const> events) override;

  // The notification request an event becomes, or the reason it cannot
  // (core::RequestError). Pure; for tests.
  [[nodiscard]] hub::NotificationRequest RequestFor(const Event& event) const;

 private:
  const TargetSettings settings_;
  const mustache::MustacheText title_, body_, link_;
  db::Pool& pool_;
  const core::Clock& clock_;
  hub::NotifyMetrics metrics_;
};

}  // namespace chopar::outbox
