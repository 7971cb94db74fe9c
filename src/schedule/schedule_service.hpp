#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::schedule {

// POST /v1/schedules/preview and `chopar cron PATTERN --timezone Z --after T
// --count N` (no database needed): body {"cron", "timezone" (default "UTC"),
// "after" (RFC 3339, default `now`), "count" (1..1000, default 10)} →
// {"fire_at": [RFC 3339…]}, the next instants strictly after `after` exactly
// as the scheduler fires them. Throws core::ApiError 400 naming the field (a
// bad cron pattern's message carries the character position). Pure.
nlohmann::json PreviewFireTimes(const nlohmann::json& body, core::TimePoint now);

// The schedules API (API.md "Schedules"): JSON in, JSON out. Every method
// validates first and throws core::ApiError (400 invalid_json /
// invalid_field, 404 not_found / user_not_found) before writing anything;
// database failures throw db::DbError. Every write wakes the schedulers
// (NOTIFY chopar_schedules at commit). The pool and clock must outlive the
// service. Thread-safe (each call borrows its own connection).
class ScheduleService {
 public:
  // Largest `schedules` array BulkPut accepts.
  static constexpr std::size_t kMaxBulk = 10'000;

  ScheduleService(db::Pool& pool, const core::Clock& clock) : pool_(pool), clock_(clock) {}

  // PUT /v1/schedules/{key}: create or replace (see ParseScheduleSpec for the
  // body). Returns {"key", "next_fire_at"} — next_fire_at is the stored first
  // firing (null when the pattern never fires or the schedule is disabled).
  // Re-sending an unchanged schedule keeps its next_fire_at, so an occurrence
  // that is due and not yet fired is not lost. Unknown user → 404
  // user_not_found.
  nlohmann::json Put(std::string_view key, const nlohmann::json& body);

  // GET /v1/schedules/{key}: the schedule with its state (next_fire_at,
  // last_fired_at, last_due_at, last_skipped_at, skipped_count, last_error,
  // effective_timezone). 404 not_found if absent.
  nlohmann::json Get(std::string_view key);

  // DELETE /v1/schedules/{key} (→ 204). 404 not_found if absent.
  void Delete(std::string_view key);

  // PUT /v1/schedules {"schedules": [{"key": …, …PUT body…}, …]}: up to
  // kMaxBulk in one transaction with set-based SQL; all or nothing. An
  // invalid item is named by index in the error's field and message
  // ("schedules[3].cron", "schedules[3]: cron: …"); a key given twice, or an
  // unknown user, also names the index. Returns {"upserted": n}.
  nlohmann::json BulkPut(const nlohmann::json& body);

  // POST /v1/schedules/preview: PreviewFireTimes at the clock's now.
  nlohmann::json Preview(const nlohmann::json& body) const {
    return PreviewFireTimes(body, clock_.Now());
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
