#pragma once

#include "http/router.hpp"
#include "reports/report_status.hpp"

namespace chopar::http {

// docs/api.md "Reports": GET /v1/reports, every configured report job with
// when it is next due, its newest runs and its last outcome (server API
// key). `status` must outlive the router.
void RegisterReportRoutes(Router& router, const reports::ReportStatus& status);

}  // namespace chopar::http
