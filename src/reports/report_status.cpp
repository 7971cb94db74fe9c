#include "reports/report_status.hpp"

#include <algorithm>
#include <map>

#include "core/time_format.hpp"
#include "reports/due.hpp"
#include "reports/http_source.hpp"
#include "reports/queries.hpp"
#include "reports/report_store.hpp"

namespace chopar::reports {
namespace {

template <typename T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json Settings(const ReportJob& job) {
  return {{"name", job.name},
          {"kind", ReportKindName(job.kind)},
          {"cron", job.cron},
          {"timezone", job.timezone},
          {"period", PeriodName(job.period)},
          {"catchup_window_seconds", job.catchup_window.count()},
          {"source", job.source_url ? RedactedUrl(*job.source_url) : "builtin"},
          {"recipients", job.recipient_ids ? nlohmann::json(*job.recipient_ids) : "admins"},
          {"locale", job.locale},
          {"threshold", job.kind == ReportKind::kAnomaly ? nlohmann::json(job.threshold)
                                                         : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json ReportStatus::List() const {
  const core::TimePoint now = clock_.Now();
  const std::vector<Occurrence> due = DueOccurrences(jobs_, now);
  const std::vector<Occurrence> pending = NotDone(jobs_, due, LoadDone(pool_, jobs_, due));
  const auto states = LoadJobStates(pool_, jobs_);

  std::map<std::string, nlohmann::json> runs;
  {
    std::vector<std::string> names;
    for (const ReportJob& job : jobs_) names.push_back(job.name);
    auto conn = pool_.Acquire();
    const db::Result rows = conn->Exec(queries::kRecentRuns, db::ArrayLiteral(names), kRecentRuns);
    for (int i = 0; i < rows.Rows(); ++i) {
      runs[rows.String(i, "job")].push_back({{"period_key", rows.String(i, "period_key")},
                                             {"due_at", rows.String(i, "due_at")},
                                             {"ran_at", rows.String(i, "ran_at")},
                                             {"recipients", rows.Int(i, "recipients")}});
    }
  }

  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    const ReportJob& job = jobs_[i];
    nlohmann::json item = Settings(job);
    // The oldest occurrence still waiting to be reported, else the next one.
    const auto waiting = std::find_if(pending.begin(), pending.end(),
                                      [&](const Occurrence& o) { return o.job == i; });
    std::optional<core::TimePoint> next_due;
    std::optional<std::string> next_key;
    if (waiting != pending.end()) {
      next_due = waiting->due;
      next_key = waiting->period.key;
    } else if ((next_due = NextOccurrence(job, now))) {
      next_key = PeriodOf(job, *next_due).key;
    }
    item["next_due_at"] = next_due ? nlohmann::json(core::FormatRfc3339(*next_due)) : nullptr;
    item["next_period_key"] = OrNull(next_key);
    item["overdue"] = waiting != pending.end();
    const auto state = states.find(job.name);
    const JobState empty;
    const JobState& s = state == states.end() ? empty : state->second;
    item["last_success_at"] = OrNull(s.last_success_at);
    item["last_error"] = OrNull(s.last_error);
    item["last_error_at"] = OrNull(s.last_error_at);
    item["failures"] = s.failures;
    const auto job_runs = runs.find(job.name);
    item["runs"] = job_runs == runs.end() ? nlohmann::json::array() : job_runs->second;
    list.push_back(std::move(item));
  }
  return {{"reports", std::move(list)}};
}

}  // namespace chopar::reports
