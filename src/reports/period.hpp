#pragma once

#include <date/date.h>
#include <date/tz.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "reports/job.hpp"

namespace chopar::reports {

// Which period one occurrence of a job reports on, and the instants it
// covers: [from, to).
struct ReportPeriod {
  std::string key;  // "weekly:2026-W33", "monthly:2026-07", "anomaly:2026-08-17"
  core::TimePoint from;
  core::TimePoint to;

  friend bool operator==(const ReportPeriod&, const ReportPeriod&) = default;
};

// The ISO 8601 week of a date: "2026-W33". The year is the ISO week-year
// (the year of that week's Thursday): 2027-01-03 is in "2026-W53",
// 2025-12-29 in "2026-W01". Pure.
std::string IsoWeekName(date::year_month_day day);

// The period an occurrence due at `due` reports on, from the date of `due`
// in the job's zone (its local date D):
//   week:  the last full ISO week before D: key "weekly:<IsoWeekName>", from
//          its Monday 00:00 to the next Monday 00:00 (a Monday 2026-08-17
//          → weekly:2026-W33, 2026-08-10 .. 2026-08-17; a Sunday reports the
//          week before its own);
//   month: the month before D's: "monthly:YYYY-MM", from its 1st 00:00 to
//          the next 1st 00:00 (January → December of the year before);
//   day:   D itself, "anomaly:YYYY-MM-DD" for an anomaly job and
//          "<name>:YYYY-MM-DD" for a summary, from D 00:00 to `due` (a day
//          is reported as far as it has gone).
// Local midnights are the zone's (a midnight skipped by a daylight-saving
// change counts from the first instant after it). Pure; thread-safe.
ReportPeriod PeriodOf(const ReportJob& job, core::TimePoint due);

// The builtin anomaly check's windows for an occurrence due at `due`: the
// first is the local day of `due` from 00:00 to `due`, then the same local
// hours of the same weekday 1 .. `weeks` weeks before, newest first. Pure.
std::vector<std::pair<core::TimePoint, core::TimePoint>> SameWeekdayWindows(
    const date::time_zone* zone, core::TimePoint due, int weeks);

}  // namespace chopar::reports
