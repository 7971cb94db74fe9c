#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "schedule/schedule.hpp"
#include "schedule/schedule_spec.hpp"

namespace chopar::schedule {

// POST /v1/schedules/preview and `chopar cron PATTERN --timezone Z --after T
// --count N` (no database needed): the next `request.count` instants strictly
// after `request.after` (default `now`), exactly as the scheduler fires them.
// Pure.
std::vector<core::TimePoint> PreviewFireTimes(const PreviewRequest& request, core::TimePoint now);

// A schedule as written.
struct StoredSchedule {
  std::string key;
  // The stored first firing, nullopt when the pattern never fires or the
  // schedule is disabled.
  std::optional<core::TimePoint> next_fire_at;
};

// The schedules (docs/api.md "Schedules"). Requests come validated (see
// schedule_spec.hpp for their parsers). A user or schedule that does not
// exist throws core::RequestError (kUserNotFound / kNotFound) before anything
// is written; database failures throw db::DbError. Every write wakes the
// schedulers (NOTIFY chopar_schedules at commit). The pool and clock must
// outlive the service. Thread-safe (each call borrows its own connection).
class ScheduleService {
 public:
  ScheduleService(db::Pool& pool, const core::Clock& clock) : pool_(pool), clock_(clock) {}

  // PUT /v1/schedules/{key}: create or replace. Re-sending an unchanged
  // schedule keeps its next_fire_at, so an occurrence that is due and not yet
  // fired is not lost. Unknown user → kUserNotFound.
  StoredSchedule Put(const ScheduleSpec& spec);

  // GET /v1/schedules/{key}: the schedule with its state (next_fire_at,
  // last_fired_at, last_due_at, last_skipped_at, skipped_count, last_error,
  // effective_timezone). kNotFound if absent.
  Schedule Get(std::string_view key);

  // DELETE /v1/schedules/{key} (→ 204). kNotFound if absent.
  void Delete(std::string_view key);

  // PUT /v1/schedules: every spec in one transaction with set-based SQL; all
  // or nothing. A key given twice, or an unknown user, is refused naming the
  // item by index as ParseScheduleSpecs does ("schedules[3].user_id").
  // Returns how many were written.
  std::size_t BulkPut(const std::vector<ScheduleSpec>& specs);

  // POST /v1/schedules/preview: PreviewFireTimes at the clock's now.
  std::vector<core::TimePoint> Preview(const PreviewRequest& request) const {
    return PreviewFireTimes(request, clock_.Now());
  }

  // For hub::UserService::Options::timezone_changed: inside the transaction
  // that changed users.timezone, moves that user's zone-following schedules
  // (RecomputeSchedulesForUser at the clock's now). Throws db::DbError.
  void RecomputeForUser(db::Transaction& tx, std::int64_t user_id) const;

 private:
  db::Pool& pool_;
  const core::Clock& clock_;
};

}  // namespace chopar::schedule
