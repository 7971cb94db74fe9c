#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "reports/job.hpp"
#include "reports/period.hpp"

namespace chopar::reports {

// One cron occurrence of a job and the period it reports on.
struct Occurrence {
  std::size_t job = 0;  // index into the jobs it was computed from
  core::TimePoint due;
  ReportPeriod period;

  friend bool operator==(const Occurrence&, const Occurrence&) = default;
};

// (job name, period key) pairs already reported (rows of report_runs).
using DoneSet = std::set<std::pair<std::string, std::string>, std::less<>>;

// Every occurrence of every job that is due at `now` and still inside its
// job's catch-up window (now - due <= catchup_window), oldest first, jobs
// in configuration order on equal due instants. "When" is the schedules'
// one code path: the pattern's firing instants in the job's zone
// (schedule::NextFireTimes, cronie's daylight-saving rules) and the
// catch-up rule (schedule::DecideCatchup, policy `all`), so a report
// missed by downtime is sent late but only while its window lasts. Pure;
// thread-safe.
std::vector<Occurrence> DueOccurrences(std::span<const ReportJob> jobs, core::TimePoint now);

// The occurrences whose (job name, period key) is not in `done`, in order;
// an occurrence whose period an earlier one already claims (two firings in
// one period) is dropped too. Pure.
std::vector<Occurrence> NotDone(std::span<const ReportJob> jobs,
                                const std::vector<Occurrence>& occurrences, const DoneSet& done);

// The one report to run at `now` given what is done: the first of
// NotDone(DueOccurrences(jobs, now)), or nullopt — the source document's
// due_task(). Pure.
std::optional<Occurrence> DueTask(std::span<const ReportJob> jobs, core::TimePoint now,
                                  const DoneSet& done);

// The job's first occurrence strictly after `now`; nullopt when its pattern
// never fires. Pure.
std::optional<core::TimePoint> NextOccurrence(const ReportJob& job, core::TimePoint now);

}  // namespace chopar::reports
