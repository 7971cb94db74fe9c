#include "http/console_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {

nlohmann::json SinkMessageView(const console::SinkMessage& m) {
  return {{"id", m.id},
          {"delivery_id", m.delivery_id},
          {"notification_id", OrNull(m.notification_id)},
          {"channel", m.channel},
          {"user_id", m.user_id},
          {"address", OrNull(m.address)},
          {"title", OrNull(m.title)},
          {"body", OrNull(m.body)},
          {"html", OrNull(m.html)},
          {"created_at", TimeView(m.created_at)}};
}

nlohmann::json PushSubscriptionsView(const std::vector<console::PushSubscription>& list) {
  nlohmann::json items = nlohmann::json::array();
  for (const console::PushSubscription& s : list) {
    items.push_back(
        {{"id", s.id}, {"endpoint", s.endpoint}, {"created_at", TimeView(s.created_at)}});
  }
  return {{"items", std::move(items)}};
}

nlohmann::json DeliveriesPerMinuteView(const std::vector<console::DeliveryMinute>& minutes) {
  nlohmann::json items = nlohmann::json::array();
  for (const console::DeliveryMinute& m : minutes) {
    items.push_back({{"at", TimeView(m.at)},
                     {"channel", m.channel},
                     {"status", m.status},
                     {"count", m.count}});
  }
  return {{"minutes", std::move(items)}};
}

nlohmann::json OverviewView(const console::Overview& o) {
  const std::optional<double> failure_rate = o.failure_rate();
  return {{"queue_depth", o.queue_depth()},
          {"queued", o.queued},
          {"due", o.due},
          {"sending", o.sending},
          {"schedules_due", o.schedules_due},
          {"schedule_lag_seconds", o.schedule_lag_seconds},
          {"last_hour", o.last_hour},
          {"failure_rate", OrNull(failure_rate)}};
}

}  // namespace chopar::http
