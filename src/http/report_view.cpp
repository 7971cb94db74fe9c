#include "http/report_view.hpp"

#include "http/json_view.hpp"
#include "reports/http_source.hpp"

namespace chopar::http {
namespace {

nlohmann::json RunView(const reports::ReportRun& run) {
  return {{"period_key", run.period_key},
          {"due_at", TimeView(run.due_at)},
          {"ran_at", TimeView(run.ran_at)},
          {"recipients", run.recipients}};
}

nlohmann::json JobStatusView(const reports::JobStatus& status) {
  const reports::ReportJob& job = status.job;
  nlohmann::json runs = nlohmann::json::array();
  for (const reports::ReportRun& run : status.runs) runs.push_back(RunView(run));
  return {{"name", job.name},
          {"kind", reports::ReportKindName(job.kind)},
          {"cron", job.cron},
          {"timezone", job.timezone},
          {"period", reports::PeriodName(job.period)},
          {"catchup_window_seconds", job.catchup_window.count()},
          {"source", job.source_url ? reports::RedactedUrl(*job.source_url) : "builtin"},
          {"recipients", job.recipient_ids ? nlohmann::json(*job.recipient_ids) : "admins"},
          {"locale", job.locale},
          {"threshold", job.kind == reports::ReportKind::kAnomaly ? nlohmann::json(job.threshold)
                                                                  : nlohmann::json(nullptr)},
          {"next_due_at", TimeView(status.next_due_at)},
          {"next_period_key", OrNull(status.next_period_key)},
          {"overdue", status.overdue},
          {"last_success_at", TimeView(status.last_success_at)},
          {"last_error", OrNull(status.last_error)},
          {"last_error_at", TimeView(status.last_error_at)},
          {"failures", status.failures},
          {"runs", std::move(runs)}};
}

}  // namespace

nlohmann::json ReportStatusView(const std::vector<reports::JobStatus>& jobs) {
  nlohmann::json list = nlohmann::json::array();
  for (const reports::JobStatus& status : jobs) list.push_back(JobStatusView(status));
  return {{"reports", std::move(list)}};
}

}  // namespace chopar::http
