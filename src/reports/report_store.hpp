#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "reports/due.hpp"
#include "reports/job.hpp"

namespace chopar::reports {

// The report tables (report_runs, report_jobs) outside a run's own
// transaction. Each function borrows a connection of `pool` for one
// statement and throws db::DbError / db::PoolTimeout when the database
// fails. Thread-safe.

// Which of `occurrences` are reported already.
DoneSet LoadDone(db::Pool& pool, std::span<const ReportJob> jobs,
                 std::span<const Occurrence> occurrences);

// Records a run of `job` that did not happen, and why (credentials in
// `reason`, such as a source URL's token, redacted: core::RedactSecrets).
void RecordFailure(db::Pool& pool, const std::string& job, const std::string& reason,
                   core::TimePoint now);

// A job's stored state (report_jobs), as the API shows it.
struct JobState {
  std::optional<core::TimePoint> last_success_at;
  std::optional<std::string> last_error;
  std::optional<core::TimePoint> last_error_at;
  std::int64_t failures = 0;  // in a row, since the last success
};
std::map<std::string, JobState> LoadJobStates(db::Pool& pool, std::span<const ReportJob> jobs);

}  // namespace chopar::reports
