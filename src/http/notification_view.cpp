#include "http/notification_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {

nlohmann::json NotificationView(const hub::Notification& n) {
  return {{"id", n.id},
          {"user_id", n.user_id},
          {"type", n.type},
          {"title", n.title},
          {"body", n.body},
          {"link", OrNull(n.link)},
          {"data", n.data},
          {"critical", n.critical},
          {"dedup_key", OrNull(n.dedup_key)},
          {"tenant", OrNull(n.tenant)},
          {"category", OrNull(n.category)},
          {"tags", n.tags},
          {"actions", n.actions},
          {"created_at", TimeView(n.created_at)},
          {"seen_at", TimeView(n.seen_at)},
          {"read_at", TimeView(n.read_at)},
          {"archived_at", TimeView(n.archived_at)},
          {"snoozed_until", TimeView(n.snoozed_until)}};
}

nlohmann::json DeliveryView(const hub::Delivery& d) {
  return {{"id", d.id},
          {"notification_id", d.notification_id},
          {"user_id", d.user_id},
          {"channel", d.channel},
          {"status", d.status},
          {"attempts", d.attempts},
          {"last_error", OrNull(d.last_error)},
          {"provider", OrNull(d.provider)},
          {"provider_message_id", OrNull(d.provider_message_id)},
          {"provider_status", OrNull(d.provider_status)},
          {"next_attempt_at", TimeView(d.next_attempt_at)},
          {"created_at", TimeView(d.created_at)},
          {"updated_at", TimeView(d.updated_at)},
          {"sent_at", TimeView(d.sent_at)}};
}

nlohmann::json NotificationWithDeliveriesView(const hub::NotificationWithDeliveries& found) {
  nlohmann::json doc = NotificationView(found.notification);
  nlohmann::json deliveries = nlohmann::json::array();
  for (const hub::Delivery& d : found.deliveries) {
    deliveries.push_back({{"id", d.id},
                          {"channel", d.channel},
                          {"status", d.status},
                          {"attempts", d.attempts},
                          {"last_error", OrNull(d.last_error)},
                          {"updated_at", TimeView(d.updated_at)}});
  }
  doc["deliveries"] = std::move(deliveries);
  doc["workflow"] = found.workflow;
  return doc;
}

nlohmann::json NotifyResultView(const hub::NotifyResult& result) {
  nlohmann::json names = nlohmann::json::array();
  for (core::ChannelKind kind : result.channels) names.push_back(core::ChannelName(kind));
  nlohmann::json out = {{"id", result.id}, {"created", result.created}, {"channels", names}};
  if (result.send_at) out["send_at"] = TimeView(result.send_at);
  return out;
}

nlohmann::json ActionPressView(const hub::ActionPress& press) {
  return {{"notification_id", press.notification_id},
          {"action", press.action},
          {"event", press.event},
          {"pressed_at", TimeView(press.pressed_at)},
          {"recorded", press.recorded}};
}

}  // namespace chopar::http
