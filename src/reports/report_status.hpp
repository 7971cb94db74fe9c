#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "reports/job.hpp"

namespace chopar::reports {

// One run of a report job: its period, when it was due and when it ran.
struct ReportRun {
  std::string period_key;
  core::TimePoint due_at;
  core::TimePoint ran_at;
  std::int64_t recipients = 0;
};

// A configured job with where it stands (http::ReportStatusView is its
// JSON).
struct JobStatus {
  ReportJob job;
  // The oldest occurrence still waiting to be reported, else the next one;
  // none for a job that never fires again.
  std::optional<core::TimePoint> next_due_at{};
  std::optional<std::string> next_period_key{};
  bool overdue = false;  // an occurrence is waiting past its due time
  std::optional<core::TimePoint> last_success_at{};
  std::optional<std::string> last_error{};
  std::optional<core::TimePoint> last_error_at{};
  std::int64_t failures = 0;      // in a row, since the last success
  std::vector<ReportRun> runs{};  // the newest kRecentRuns, newest first
};

// What GET /v1/reports shows (docs/api.md "Reports"): every configured job
// with its settings, when it is next due and for which period, its newest
// runs and its last outcome. The pool and clock must outlive it;
// thread-safe.
class ReportStatus {
 public:
  // How many runs per job List() shows.
  static constexpr int kRecentRuns = 10;

  ReportStatus(db::Pool& pool, std::vector<ReportJob> jobs, const core::Clock& clock)
      : pool_(pool), jobs_(std::move(jobs)), clock_(clock) {}

  // Every job in configuration order. Throws db::DbError /
  // db::PoolTimeout.
  [[nodiscard]] std::vector<JobStatus> List() const;

 private:
  db::Pool& pool_;
  const std::vector<ReportJob> jobs_;
  const core::Clock& clock_;
};

}  // namespace chopar::reports
