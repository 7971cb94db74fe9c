#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/result.hpp"

namespace chopar::hub {

// A notification in a user's inbox (docs/api.md "The notification object";
// http::NotificationView is its JSON). A value.
struct Notification {
  std::int64_t id = 0;
  std::int64_t user_id = 0;
  std::string type;
  std::string title;
  std::string body;
  std::optional<std::string> link;
  // The application's data, as it sent it: a JSON object by definition.
  nlohmann::json data = nlohmann::json::object();
  bool critical = false;
  std::optional<std::string> dedup_key;
  // The tenant it is in; none for a notification outside tenants.
  std::optional<std::string> tenant;
  // Its template's category, else the request's (preferences and the
  // inbox's tabs use it).
  std::optional<std::string> category;
  std::vector<std::string> tags;
  // At most two: {"label", "url"} or {"label", "event"} (with "pressed_at"
  // once pressed). An array by definition.
  nlohmann::json actions = nlohmann::json::array();
  core::TimePoint created_at;
  std::optional<core::TimePoint> seen_at;
  std::optional<core::TimePoint> read_at;
  std::optional<core::TimePoint> archived_at;
  std::optional<core::TimePoint> snoozed_until;
};

// One delivery of a notification on one channel (docs/api.md "Deliveries").
struct Delivery {
  std::int64_t id = 0;
  std::int64_t notification_id = 0;
  std::int64_t user_id = 0;
  std::string channel;  // a registered channel's name
  std::string status;   // queued, sending, sent, failed, skipped, canceled
  int attempts = 0;
  std::optional<std::string> last_error;
  std::optional<std::string> provider;  // who answered the last attempt
  std::optional<std::string> provider_message_id;
  std::optional<std::string> provider_status;
  std::optional<core::TimePoint> next_attempt_at;
  core::TimePoint created_at;
  core::TimePoint updated_at;
  std::optional<core::TimePoint> sent_at;
};

// GET /v1/notifications/{id}: the notification and its deliveries, by id.
struct NotificationWithDeliveries {
  Notification notification;
  std::vector<Delivery> deliveries;
  // Its workflow run (docs/api.md "Workflows with steps"): {"status",
  // "step", "due_at", "steps": [outcome…]}; null when its type has no steps.
  nlohmann::json workflow;
};

// A notification from the columns of a row of the inbox queries (id,
// user_id, type, title, body, link, data, critical, dedup_key, tenant,
// category, tags and actions as JSON text, created_at, seen_at, read_at,
// archived_at, snoozed_until).
Notification ReadNotification(const db::Result& rows, int row);
// A delivery from the columns of a row of list_deliveries.sql (and the
// deliveries of get_notification.sql).
Delivery ReadDelivery(const db::Result& rows, int row);

}  // namespace chopar::hub
