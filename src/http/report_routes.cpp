// Periodic reports (docs/api.md "Reports").
#include "http/report_routes.hpp"

#include "http/report_view.hpp"

namespace chopar::http {
namespace {

struct ListReports {
  const reports::ReportStatus& status;
  Response operator()(const Request&) const {
    return JsonResponse(200, ReportStatusView(status.List()));
  }
};

}  // namespace

void RegisterReportRoutes(Router& router, const reports::ReportStatus& status) {
  router.Add("GET", "/v1/reports", Auth::kServerKey, ListReports{status});
}

}  // namespace chopar::http
