#pragma once

#include <date/date.h>

#include <chrono>
#include <optional>

#include "schedule/cron.hpp"

namespace chopar::schedule {

using LocalMinutes = date::local_time<std::chrono::minutes>;

// The earliest local wall time w with from <= w < limit whose date, hour and
// minute match `pattern` (calendar arithmetic only: no time zone, so no gaps
// or repeats). nullopt if there is none. Skips non-matching months, days and
// hours with bit scans, so its cost grows with the number of days looked at,
// not minutes. Pure; thread-safe.
[[nodiscard]] std::optional<LocalMinutes> NextMatchingWallTime(const CronPattern& pattern,
                                                               LocalMinutes from,
                                                               date::local_seconds limit);

}  // namespace chopar::schedule
