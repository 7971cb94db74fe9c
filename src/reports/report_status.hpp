#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "reports/job.hpp"

namespace chopar::reports {

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

  // {"reports": [{"name", "kind", "cron", "timezone", "period",
  //   "catchup_window_seconds", "source", "recipients", "locale",
  //   "threshold", "next_due_at", "next_period_key", "overdue",
  //   "last_success_at", "last_error", "last_error_at", "failures",
  //   "runs": [{"period_key", "due_at", "ran_at", "recipients"}]}]}
  // in configuration order. Throws db::DbError / db::PoolTimeout.
  [[nodiscard]] nlohmann::json List() const;

 private:
  db::Pool& pool_;
  const std::vector<ReportJob> jobs_;
  const core::Clock& clock_;
};

}  // namespace chopar::reports
