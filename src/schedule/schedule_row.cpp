#include "db/time_column.hpp"
#include "schedule/schedule.hpp"

namespace chopar::schedule {
Schedule ReadSchedule(const db::Result& rows, int row) {
  Schedule s;
  s.key = rows.String(row, "key");
  s.user_id = rows.Int(row, "user_id");
  s.cron = rows.String(row, "cron");
  s.timezone = rows.OptString(row, "timezone");
  s.effective_timezone = rows.String(row, "effective_timezone");
  Schedule::Notification& n = s.notification;
  n.type = rows.String(row, "type");
  n.title = rows.String(row, "title");
  n.body = rows.String(row, "body");
  n.link = rows.OptString(row, "link");
  n.data = nlohmann::json::parse(rows.Text(row, "data"));
  if (!rows.IsNull(row, "channels")) {
    n.channels = nlohmann::json::parse(rows.Text(row, "channels")).get<std::vector<std::string>>();
  }
  n.critical = rows.Bool(row, "critical");
  if (const auto delay = rows.OptInt(row, "delay_seconds"))
    n.delay_seconds = static_cast<int>(*delay);
  n.cancellation_key = rows.OptString(row, "cancellation_key");
  s.catchup_policy = rows.String(row, "catchup_policy");
  s.catchup_window_seconds = static_cast<int>(rows.Int(row, "catchup_window_seconds"));
  s.enabled = rows.Bool(row, "enabled");
  s.next_fire_at = db::OptTimeColumn(rows, row, "next_fire_at");
  s.last_fired_at = db::OptTimeColumn(rows, row, "last_fired_at");
  s.last_due_at = db::OptTimeColumn(rows, row, "last_due_at");
  s.last_skipped_at = db::OptTimeColumn(rows, row, "last_skipped_at");
  s.skipped_count = rows.Int(row, "skipped_count");
  s.last_error = rows.OptString(row, "last_error");
  s.created_at = db::TimeColumn(rows, row, "created_at");
  s.updated_at = db::TimeColumn(rows, row, "updated_at");
  return s;
}

}  // namespace chopar::schedule
