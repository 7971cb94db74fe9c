#include "reports/due.hpp"

#include <algorithm>

#include "schedule/catchup.hpp"
#include "schedule/next_fire.hpp"

namespace chopar::reports {

std::vector<Occurrence> DueOccurrences(std::span<const ReportJob> jobs, core::TimePoint now) {
  std::vector<Occurrence> due;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ReportJob& job = jobs[i];
    // The first occurrence that can still be inside the window: strictly
    // after one tick before its start.
    const core::TimePoint window_start = now - job.catchup_window;
    const auto first =
        schedule::NextFireTime(job.pattern, job.zone, window_start - core::TimePoint::duration(1));
    if (!first || *first > now) continue;
    const schedule::CatchupDecision decision = schedule::DecideCatchup(
        job.pattern, job.zone, *first, now, {schedule::CatchupPolicy::kAll, job.catchup_window});
    for (core::TimePoint at : decision.fire) due.push_back({i, at, PeriodOf(job, at)});
  }
  std::stable_sort(due.begin(), due.end(), [](const Occurrence& a, const Occurrence& b) {
    return a.due != b.due ? a.due < b.due : a.job < b.job;
  });
  return due;
}

std::vector<Occurrence> NotDone(std::span<const ReportJob> jobs,
                                const std::vector<Occurrence>& occurrences, const DoneSet& done) {
  std::vector<Occurrence> pending;
  DoneSet claimed;
  for (const Occurrence& occurrence : occurrences) {
    std::pair<std::string, std::string> key{jobs[occurrence.job].name, occurrence.period.key};
    if (done.contains(key) || !claimed.insert(std::move(key)).second) continue;
    pending.push_back(occurrence);
  }
  return pending;
}

std::optional<Occurrence> DueTask(std::span<const ReportJob> jobs, core::TimePoint now,
                                  const DoneSet& done) {
  const std::vector<Occurrence> pending = NotDone(jobs, DueOccurrences(jobs, now), done);
  if (pending.empty()) return std::nullopt;
  return pending.front();
}

std::optional<core::TimePoint> NextOccurrence(const ReportJob& job, core::TimePoint now) {
  return schedule::NextFireTime(job.pattern, job.zone, now);
}

}  // namespace chopar::reports
