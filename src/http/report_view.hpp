#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "reports/report_status.hpp"

namespace chopar::http {

// GET /v1/reports (docs/api.md "Reports"): {"reports": [{"name", "kind",
// "cron", "timezone", "period", "catchup_window_seconds", "source" (an HTTP
// source's URL without its query's values, or "builtin"), "recipients" (ids
// or "admins"), "locale", "threshold" (anomaly jobs; else null),
// "next_due_at", "next_period_key", "overdue", "last_success_at",
// "last_error", "last_error_at", "failures", "runs": [{"period_key",
// "due_at", "ran_at", "recipients"}]}]}.
nlohmann::json ReportStatusView(const std::vector<reports::JobStatus>& jobs);

}  // namespace chopar::http
