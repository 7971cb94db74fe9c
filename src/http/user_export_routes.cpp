// Exporting a user's data (docs/api.md "Exporting a user's data"): one JSON
// document of everything chopar holds about the user, each part as the
// route that shows it alone shows it.
#include <charconv>
#include <chrono>
#include <string>
#include <vector>

#include "access/audit_log.hpp"
#include "console/directory.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "http/api.hpp"
#include "http/console_view.hpp"
#include "http/device_routes.hpp"
#include "http/json_view.hpp"
#include "http/notification_view.hpp"
#include "http/schedule_view.hpp"
#include "http/user_view.hpp"
#include "hub/device.hpp"
#include "hub/user_export.hpp"

namespace chopar::http {
namespace {

using json = nlohmann::json;

json ParsedOrNull(const std::optional<std::string>& text) {
  return text ? json::parse(*text) : json(nullptr);
}

// The most items of each list in one document; a list that reaches it is
// named in "truncated". Notifications are paged instead.
constexpr int kMaxListed = 1000;
constexpr int kNotificationsPerPage = 100;
constexpr int kSchedulesPerRead = 200;  // console::ListSchedules' largest page

struct ExportUser {
  Dependencies deps;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    std::optional<std::int64_t> before;
    if (const auto cursor = request.query.Get("cursor")) {
      std::int64_t id = 0;
      const auto [end, error] =
          std::from_chars(cursor->data(), cursor->data() + cursor->size(), id);
      if (error != std::errc() || end != cursor->data() + cursor->size() || id < 1) {
        throw core::InvalidField("cursor",
                                 "cursor must be a notifications_next_cursor of an export");
      }
      before = id;
    }
    const hub::User user = deps.users.GetUser(user_id);
    const hub::UserExportReader reader(deps.pool);
    json truncated = json::array();

    json devices = json::array();
    for (const hub::Device& device : hub::DeviceService(deps.pool).List(user_id)) {
      devices.push_back(DeviceView(device));
    }

    json topics = json::array();
    for (const auto& topic : reader.Topics(user_id, kMaxListed + 1)) {
      topics.push_back({{"topic", topic.topic},
                        {"name", topic.name},
                        {"tenant", OrNull(topic.tenant)},
                        {"subscribed_at", TimeView(topic.subscribed_at)}});
    }

    json schedules = json::array();
    std::optional<std::string> schedule_cursor;
    do {
      const auto page =
          console::ListSchedules(deps.pool, user_id, kSchedulesPerRead, schedule_cursor);
      for (const auto& schedule : page.items) schedules.push_back(ScheduleView(schedule));
      schedule_cursor = page.next_cursor;
    } while (schedule_cursor && static_cast<int>(schedules.size()) <= kMaxListed);

    json delayed = json::array();
    for (const auto& d : reader.Delayed(user_id, kMaxListed + 1)) {
      delayed.push_back({{"id", d.id},
                         {"notification_id", d.notification_id},
                         {"due_at", TimeView(d.due_at)},
                         {"request", json::parse(d.request_json)},
                         {"request_version", d.request_version},
                         {"failed_at", TimeView(d.failed_at)},
                         {"last_error", OrNull(d.last_error)}});
    }

    json notifications = json::array();
    const auto ids = reader.NotificationIds(user_id, before, kNotificationsPerPage + 1);
    for (std::size_t i = 0; i < ids.size() && i < kNotificationsPerPage; ++i) {
      notifications.push_back(NotificationWithDeliveriesView(deps.inbox.GetNotification(ids[i])));
    }
    const json next_cursor = ids.size() > kNotificationsPerPage
                                 ? json(std::to_string(ids[kNotificationsPerPage - 1]))
                                 : json(nullptr);

    // Who changed what of the user's, and when; the operators' names and
    // network addresses are theirs, not the user's, and stay in the log.
    json audit = json::array();
    for (const auto& entry : access::AuditAboutUser(deps.pool, user_id, kMaxListed + 1)) {
      audit.push_back({{"at", core::FormatRfc3339Micros(entry.at)},
                       {"actor", entry.actor},
                       {"action", entry.action},
                       {"resource", entry.resource},
                       {"resource_id", entry.resource_id},
                       {"before", ParsedOrNull(entry.before_json)},
                       {"after", ParsedOrNull(entry.after_json)}});
    }

    const auto cap = [&truncated](json& list, const char* name) {
      if (static_cast<int>(list.size()) <= kMaxListed) return;
      list.erase(list.begin() + kMaxListed, list.end());
      truncated.push_back(name);
    };
    cap(topics, "topics");
    cap(schedules, "schedules");
    cap(delayed, "delayed_notifications");
    cap(audit, "audit");
    const auto now =
        std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    return JsonResponse(
        200, {{"exported_at", core::FormatRfc3339(now)},
              {"user", UserView(user)},
              {"push_subscriptions",
               PushSubscriptionsView(console::ListPushSubscriptions(deps.pool, user_id))["items"]},
              {"devices", std::move(devices)},
              {"topics", std::move(topics)},
              {"schedules", std::move(schedules)},
              {"delayed_notifications", std::move(delayed)},
              {"notifications", std::move(notifications)},
              {"notifications_next_cursor", next_cursor},
              {"audit", std::move(audit)},
              {"truncated", std::move(truncated)}});
  }
};

}  // namespace

void RegisterUserExportRoutes(Router& router, const Dependencies& deps) {
  router.Add("GET", "/v1/users/{id}/export", Auth::kServerKey, ExportUser{deps});
}

}  // namespace chopar::http
