#pragma once

#include <nlohmann/json.hpp>

#include "schedule/schedule.hpp"
#include "schedule/schedule_service.hpp"

namespace chopar::http {

// GET /v1/schedules/{key} (docs/api.md "Schedules"): {"key", "user_id",
// "cron", "timezone", "effective_timezone", "notification": {"type",
// "title", "body", "link", "data", "channels", "critical", "delay_seconds",
// "cancellation_key"}, "catchup": {"policy", "window_seconds"}, "enabled",
// "next_fire_at", "last_fired_at", "last_due_at", "last_skipped_at",
// "skipped_count", "last_error", "created_at", "updated_at"}.
nlohmann::json ScheduleView(const schedule::Schedule& schedule);

// PUT /v1/schedules/{key}: {"key", "next_fire_at"} (null when it never
// fires or is disabled).
nlohmann::json StoredScheduleView(const schedule::StoredSchedule& stored);

}  // namespace chopar::http
