#include "reports/report_status.hpp"

#include <algorithm>
#include <map>

#include "db/time_column.hpp"
#include "reports/due.hpp"
#include "reports/queries.hpp"
#include "reports/report_store.hpp"

namespace chopar::reports {

std::vector<JobStatus> ReportStatus::List() const {
  const core::TimePoint now = clock_.Now();
  const std::vector<Occurrence> due = DueOccurrences(jobs_, now);
  const std::vector<Occurrence> pending = NotDone(jobs_, due, LoadDone(pool_, jobs_, due));
  const auto states = LoadJobStates(pool_, jobs_);

  std::map<std::string, std::vector<ReportRun>> runs;
  {
    std::vector<std::string> names;
    for (const ReportJob& job : jobs_) names.push_back(job.name);
    auto conn = pool_.Acquire();
    const db::Result rows = conn->Exec(queries::kRecentRuns, db::ArrayLiteral(names), kRecentRuns);
    for (int i = 0; i < rows.Rows(); ++i) {
      runs[rows.String(i, "job")].push_back({.period_key = rows.String(i, "period_key"),
                                             .due_at = db::TimeColumn(rows, i, "due_at"),
                                             .ran_at = db::TimeColumn(rows, i, "ran_at"),
                                             .recipients = rows.Int(i, "recipients")});
    }
  }

  std::vector<JobStatus> list;
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobStatus status{.job = jobs_[i]};
    // The oldest occurrence still waiting to be reported, else the next one.
    const auto waiting = std::find_if(pending.begin(), pending.end(),
                                      [&](const Occurrence& o) { return o.job == i; });
    if (waiting != pending.end()) {
      status.next_due_at = waiting->due;
      status.next_period_key = waiting->period.key;
    } else if ((status.next_due_at = NextOccurrence(status.job, now))) {
      status.next_period_key = PeriodOf(status.job, *status.next_due_at).key;
    }
    status.overdue = waiting != pending.end();
    if (const auto state = states.find(status.job.name); state != states.end()) {
      status.last_success_at = state->second.last_success_at;
      status.last_error = state->second.last_error;
      status.last_error_at = state->second.last_error_at;
      status.failures = state->second.failures;
    }
    if (auto job_runs = runs.find(status.job.name); job_runs != runs.end()) {
      status.runs = std::move(job_runs->second);
    }
    list.push_back(std::move(status));
  }
  return list;
}

}  // namespace chopar::reports
