#pragma once

#include <nlohmann/json.hpp>

#include "hub/action_press.hpp"
#include "hub/notification.hpp"
#include "hub/notify_service.hpp"

namespace chopar::http {

// The API's JSON of the hub's notifications and deliveries (docs/api.md
// "The notification object", "Deliveries").

// {"id", "user_id", "type", "title", "body", "link", "data", "critical",
// "dedup_key", "created_at", "read_at"}: the inbox's items, the SSE stream's
// "notification" events.
nlohmann::json NotificationView(const hub::Notification& notification);

// POST /v1/notifications (and each created item of a batch): {"id",
// "created", "channels": [names], "send_at" (a delayed one only)}.
nlohmann::json NotifyResultView(const hub::NotifyResult& result);

// GET /v1/deliveries' items.
nlohmann::json DeliveryView(const hub::Delivery& delivery);

// GET /v1/notifications/{id}: the notification and "deliveries", each
// {"id", "channel", "status", "attempts", "last_error", "updated_at"}.
nlohmann::json NotificationWithDeliveriesView(const hub::NotificationWithDeliveries& found);

// A press of an event action (POST /v1/inbox/notifications/{id}/actions/{n}
// and the application's twin): {"notification_id", "action", "event",
// "pressed_at", "recorded"}.
nlohmann::json ActionPressView(const hub::ActionPress& press);

}  // namespace chopar::http
