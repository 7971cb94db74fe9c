#include "http/schedule_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {

nlohmann::json ScheduleView(const schedule::Schedule& s) {
  const schedule::Schedule::Notification& n = s.notification;
  return {{"key", s.key},
          {"user_id", s.user_id},
          {"cron", s.cron},
          {"timezone", OrNull(s.timezone)},
          {"effective_timezone", s.effective_timezone},
          {"notification",
           {{"type", n.type},
            {"title", n.title},
            {"body", n.body},
            {"link", OrNull(n.link)},
            {"data", n.data},
            {"channels", OrNull(n.channels)},
            {"critical", n.critical},
            {"delay_seconds", OrNull(n.delay_seconds)},
            {"cancellation_key", OrNull(n.cancellation_key)}}},
          {"catchup", {{"policy", s.catchup_policy}, {"window_seconds", s.catchup_window_seconds}}},
          {"enabled", s.enabled},
          {"next_fire_at", TimeView(s.next_fire_at)},
          {"last_fired_at", TimeView(s.last_fired_at)},
          {"last_due_at", TimeView(s.last_due_at)},
          {"last_skipped_at", TimeView(s.last_skipped_at)},
          {"skipped_count", s.skipped_count},
          {"last_error", OrNull(s.last_error)},
          {"created_at", TimeView(s.created_at)},
          {"updated_at", TimeView(s.updated_at)}};
}

nlohmann::json StoredScheduleView(const schedule::StoredSchedule& stored) {
  return {{"key", stored.key}, {"next_fire_at", TimeView(stored.next_fire_at)}};
}

}  // namespace chopar::http
