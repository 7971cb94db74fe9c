#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "schedule/schedule_spec.hpp"

namespace chopar::schedule {

struct UpsertOutcome {
  // Index into the specs of the first item whose user does not exist. Then
  // nothing was written and `stored` is empty; the caller rolls back or
  // reports (the transaction itself is still usable).
  std::optional<std::size_t> unknown_user;
  // Per written key, its stored next_fire_at (nullopt when the pattern
  // never fires or the schedule is disabled). Order unspecified.
  std::vector<std::pair<std::string, std::optional<core::TimePoint>>> stored;
};

// Creates or replaces `specs` inside `tx` with one set-based statement
// (INSERT … SELECT FROM jsonb_to_recordset … ON CONFLICT (key) DO UPDATE),
// computing each next_fire_at = the first firing after `now` in the
// schedule's zone (its own, or its user's, read FOR SHARE in the same
// transaction). A replacement with the same user, pattern, zone and enabled
// state keeps its stored next_fire_at (see upsert_schedules.sql). Does not
// NOTIFY (see WakeSchedulers). Precondition: keys are distinct (see
// FindDuplicateKey). Throws db::DbError from the database.
UpsertOutcome UpsertSchedules(db::Transaction& tx, std::span<const ScheduleSpec> specs,
                              core::TimePoint now);

// The first pair (earlier index, later index) of specs sharing a key.
std::optional<std::pair<std::size_t, std::size_t>> FindDuplicateKey(
    std::span<const ScheduleSpec> specs);

// NOTIFY db::kSchedulesChannel, delivered at the commit of `tx`.
void WakeSchedulers(db::Transaction& tx);

// Moves the next_fire_at of `user_id`'s enabled, zone-following schedules to
// the first firing after `now` in the user's zone as `tx` sees it (call it
// after updating users.timezone in the same transaction). Occurrences already
// due at `now` stay due (they happened in the old zone and still fire). Locks
// the rows it moves; a scheduler firing one of them finishes first. Wakes
// schedulers. Returns how many schedules moved. Throws db::DbError.
int RecomputeSchedulesForUser(db::Transaction& tx, std::int64_t user_id, core::TimePoint now);

}  // namespace chopar::schedule
