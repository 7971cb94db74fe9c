#include "reports/report_store.hpp"

#include "core/redact.hpp"
#include "core/time_format.hpp"
#include "db/time_column.hpp"
#include "reports/queries.hpp"

namespace chopar::reports {

DoneSet LoadDone(db::Pool& pool, std::span<const ReportJob> jobs,
                 std::span<const Occurrence> occurrences) {
  DoneSet done;
  if (occurrences.empty()) return done;
  std::vector<std::string> names, keys;
  for (const Occurrence& occurrence : occurrences) {
    names.push_back(jobs[occurrence.job].name);
    keys.push_back(occurrence.period.key);
  }
  auto conn = pool.Acquire();
  const db::Result rows =
      conn->Exec(queries::kReportedPeriods, db::ArrayLiteral(names), db::ArrayLiteral(keys));
  for (int i = 0; i < rows.Rows(); ++i) done.emplace(rows.String(i, 0), rows.String(i, 1));
  return done;
}

void RecordFailure(db::Pool& pool, const std::string& job, const std::string& reason,
                   core::TimePoint now) {
  auto conn = pool.Acquire();
  conn->Exec(queries::kRecordFailure, job, core::RedactSecrets(reason),
             core::FormatRfc3339Micros(now));
}

std::map<std::string, JobState> LoadJobStates(db::Pool& pool, std::span<const ReportJob> jobs) {
  std::vector<std::string> names;
  for (const ReportJob& job : jobs) names.push_back(job.name);
  auto conn = pool.Acquire();
  const db::Result rows = conn->Exec(queries::kJobStates, db::ArrayLiteral(names));
  std::map<std::string, JobState> states;
  for (int i = 0; i < rows.Rows(); ++i) {
    JobState& state = states[rows.String(i, "job")];
    state.last_success_at = db::OptTimeColumn(rows, i, "last_success_at");
    state.last_error = rows.OptString(i, "last_error");
    state.last_error_at = db::OptTimeColumn(rows, i, "last_error_at");
    state.failures = rows.Int(i, "failures");
  }
  return states;
}

}  // namespace chopar::reports
