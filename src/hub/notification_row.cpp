#include "db/time_column.hpp"
#include "hub/notification.hpp"

namespace chopar::hub {
Notification ReadNotification(const db::Result& rows, int row) {
  Notification n;
  n.id = rows.Int(row, "id");
  n.user_id = rows.Int(row, "user_id");
  n.type = rows.String(row, "type");
  n.title = rows.String(row, "title");
  n.body = rows.String(row, "body");
  n.link = rows.OptString(row, "link");
  n.data = nlohmann::json::parse(rows.Text(row, "data"));
  n.critical = rows.Bool(row, "critical");
  n.dedup_key = rows.OptString(row, "dedup_key");
  n.tenant = rows.OptString(row, "tenant");
  n.category = rows.OptString(row, "category");
  n.tags = nlohmann::json::parse(rows.Text(row, "tags")).get<std::vector<std::string>>();
  n.actions = nlohmann::json::parse(rows.Text(row, "actions"));
  n.created_at = db::TimeColumn(rows, row, "created_at");
  n.seen_at = db::OptTimeColumn(rows, row, "seen_at");
  n.read_at = db::OptTimeColumn(rows, row, "read_at");
  n.archived_at = db::OptTimeColumn(rows, row, "archived_at");
  n.snoozed_until = db::OptTimeColumn(rows, row, "snoozed_until");
  return n;
}

Delivery ReadDelivery(const db::Result& rows, int row) {
  Delivery d;
  d.id = rows.Int(row, "id");
  d.notification_id = rows.Int(row, "notification_id");
  d.user_id = rows.Int(row, "user_id");
  d.channel = rows.String(row, "channel");
  d.status = rows.String(row, "status");
  d.attempts = static_cast<int>(rows.Int(row, "attempts"));
  d.last_error = rows.OptString(row, "last_error");
  d.provider = rows.OptString(row, "provider");
  d.provider_message_id = rows.OptString(row, "provider_message_id");
  d.provider_status = rows.OptString(row, "provider_status");
  d.next_attempt_at = db::OptTimeColumn(rows, row, "next_attempt_at");
  d.created_at = db::TimeColumn(rows, row, "created_at");
  d.updated_at = db::TimeColumn(rows, row, "updated_at");
  d.sent_at = db::OptTimeColumn(rows, row, "sent_at");
  return d;
}

}  // namespace chopar::hub
