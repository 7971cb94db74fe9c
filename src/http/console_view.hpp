#pragma once

// The JSON of the console's own lists and figures (docs/api.md "Console
// support").

#include <nlohmann/json.hpp>
#include <vector>

#include "console/delivery_stats.hpp"
#include "console/directory.hpp"
#include "console/sink_inbox.hpp"

namespace chopar::http {

// GET /v1/sink/messages items: {"id", "delivery_id", "notification_id",
// "channel", "user_id", "address", "title", "body", "html", "created_at"}.
nlohmann::json SinkMessageView(const console::SinkMessage& message);

// GET /v1/users/{id}/push-subscriptions: {"items": [{"id", "endpoint",
// "created_at"}]}.
nlohmann::json PushSubscriptionsView(const std::vector<console::PushSubscription>& list);

// GET /v1/stats/deliveries: {"minutes": [{"at", "channel", "status",
// "count"}]}.
nlohmann::json DeliveriesPerMinuteView(const std::vector<console::DeliveryMinute>& minutes);

// GET /v1/stats/overview: {"queue_depth", "queued", "due", "sending",
// "schedules_due", "schedule_lag_seconds", "last_hour": {status: count},
// "failure_rate" (null when the last hour has no sent or failed delivery)}.
nlohmann::json OverviewView(const console::Overview& overview);

}  // namespace chopar::http
