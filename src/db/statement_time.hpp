#pragma once

#include <optional>
#include <string>

#include "core/clock.hpp"

namespace chopar::db {

// Which clock a statement's "now" comes from, written once for every loop
// that decides on time (claims, leases, due rows, windows, retention).
// Several hosts must agree on who owns a row and whether it is due, so in
// production each statement reads the database's now(); a test's
// simulated clock hands its own time instead, so a test moves leases and
// windows by moving it (core::Clock::IsReal).

// The text form in which chopar passes an instant to SQL ($n::timestamptz).
std::string SqlTime(core::TimePoint t);

// The "now" a statement takes from `clock`: nullopt — the database's now()
// — for the real time, else the clock's own time.
std::optional<core::TimePoint> SqlNow(const core::Clock& clock);

// The same as an SQL parameter (nullopt is NULL: the statement writes
// coalesce($n::timestamptz, now())).
std::optional<std::string> SqlNowParam(std::optional<core::TimePoint> now);
inline std::optional<std::string> SqlNowParam(const core::Clock& clock) {
  return SqlNowParam(SqlNow(clock));
}

}  // namespace chopar::db
