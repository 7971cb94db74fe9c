#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/result.hpp"

namespace chopar::schedule {

// A stored schedule (docs/api.md "Schedules"; http::ScheduleView is its
// JSON). A value.
struct Schedule {
  std::string key;
  std::int64_t user_id = 0;
  std::string cron;
  std::optional<std::string> timezone;  // none: it follows the user's zone
  std::string effective_timezone;       // the zone it fires in now
  // The notification each firing creates.
  struct Notification {
    std::string type;
    std::string title;
    std::string body;
    std::optional<std::string> link;
    nlohmann::json data = nlohmann::json::object();    // the application's, as sent
    std::optional<std::vector<std::string>> channels;  // none: every channel
    bool critical = false;
    std::optional<int> delay_seconds;
    std::optional<std::string> cancellation_key;
  } notification;
  std::string catchup_policy;  // latest, all, skip
  int catchup_window_seconds = 0;
  bool enabled = true;
  std::optional<core::TimePoint> next_fire_at;
  std::optional<core::TimePoint> last_fired_at;
  std::optional<core::TimePoint> last_due_at;
  std::optional<core::TimePoint> last_skipped_at;
  std::int64_t skipped_count = 0;
  std::optional<std::string> last_error;
  core::TimePoint created_at;
  core::TimePoint updated_at;
};

// The schedule of row `row` of a query that selects the columns of
// queries/get_schedule.sql.
Schedule ReadSchedule(const db::Result& rows, int row);

}  // namespace chopar::schedule
