#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "core/clock.hpp"

namespace date {
class time_zone;
}

namespace chopar::core {

// A wall-clock time of day: the duration since local midnight, in [0, 24h).
using TimeOfDay = std::chrono::seconds;

// Parses "HH:MM" or "HH:MM:SS" (PostgreSQL's `time` text; a fraction after
// the seconds is ignored). nullopt for anything else or out of range.
std::optional<TimeOfDay> ParseTimeOfDay(std::string_view text);

// Whether `now` lies inside the quiet window [start, end): start inclusive,
// end exclusive. When start > end the window crosses midnight (22:00–08:00
// covers 23:30 and 07:59 but not 08:00). start == end is an empty window.
// Pure.
bool IsQuiet(TimeOfDay now, TimeOfDay start, TimeOfDay end);

// If `now` falls inside the user's quiet window in `zone`, the instant the
// window ends: the next occurrence of the wall time `end` after `now`. When
// that wall time does not exist that day (a spring-forward gap), the first
// instant after the gap; when it occurs twice (fall back), the first
// occurrence that is still ahead of `now`. nullopt when `now` is not quiet.
// Pure and thread-safe.
std::optional<TimePoint> QuietUntil(TimePoint now, const date::time_zone& zone, TimeOfDay start,
                                    TimeOfDay end);

// The same with the zone named by an IANA name; an unknown name falls back to
// UTC (the database only holds names the API validated, so this is a
// last-resort guard, never an error the caller must handle).
std::optional<TimePoint> QuietUntil(TimePoint now, std::string_view zone, TimeOfDay start,
                                    TimeOfDay end);

// The next time the user's wall clock in `zone` shows `time`: today's when
// it is still ahead of `now` (or is now), else tomorrow's; a wall time a
// spring-forward gap skips is the first instant after the gap, one a fall
// back repeats the first occurrence ahead of `now`. An unknown zone is UTC.
// Pure and thread-safe.
TimePoint NextWallTime(TimePoint now, std::string_view zone, TimeOfDay time);

}  // namespace chopar::core
