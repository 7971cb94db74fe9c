#pragma once

#include <date/tz.h>

#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "schedule/cron.hpp"

namespace chopar::schedule {

// When a cron pattern fires in a time zone. Day, hour and minute fields are
// matched against the LOCAL wall clock of `zone`; daylight-saving changes are
// handled as cronie does (docs/api.md "Cron patterns"):
//
//  * Wildcard patterns (minute or hour field starts with '*', see
//    CronPattern::IsWildcard) follow the wall clock: an instant fires iff its
//    local time matches. Wall times skipped by a spring-forward gap never
//    fire; a repeated fall-back hour fires on both passes, in real-time order.
//  * Fixed-time patterns (all others) fire each matching wall time once, at
//    the first instant the local clock reaches or passes it: a repeated wall
//    time fires on its first pass only, and wall times inside a gap fire once
//    at the first instant after the gap (the transition instant) — a single
//    firing there even when several gap times, or the instant itself, match.
//
// Returns the first `count` firing instants strictly after `after`, strictly
// increasing, each a whole second (a whole local minute for zones with whole-
// minute offsets). Fewer are returned when the search runs past 50 years
// without a firing (a pattern that never fires, such as "0 0 30 2 *", gives
// none) or past the largest core::TimePoint (year 2262). count <= 0 gives an
// empty vector. Daylight-saving rules are those of the tzdata on the host;
// date's reader applies the zone's last listed transition (2037 in "fat"
// tzdata) to all later times.
//
// Cost: two tz lookups per offset change crossed plus bit scans over matching
// days, hours and minutes — not a minute-by-minute walk.
//
// `zone` comes from FindTimeZone; a null zone throws std::invalid_argument.
// Pure and thread-safe. Otherwise throws only std::bad_alloc, or
// std::runtime_error if the tz database cannot read the zone's file.
[[nodiscard]] std::vector<core::TimePoint> NextFireTimes(const CronPattern& pattern,
                                                         const date::time_zone* zone,
                                                         core::TimePoint after, int count);

// The first firing instant strictly after `after`, as NextFireTimes(…, 1);
// nullopt if there is none within the search horizon.
[[nodiscard]] std::optional<core::TimePoint> NextFireTime(const CronPattern& pattern,
                                                          const date::time_zone* zone,
                                                          core::TimePoint after);

}  // namespace chopar::schedule
