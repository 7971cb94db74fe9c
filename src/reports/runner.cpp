#include "reports/runner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <variant>

#include "core/time_format.hpp"
#include "hub/notify_service.hpp"
#include "reports/queries.hpp"
#include "reports/report_store.hpp"

namespace chopar::reports {
namespace {

using std::chrono::milliseconds;

db::BackgroundLoopSettings LoopSettings() {
  db::BackgroundLoopSettings loop;
  loop.name = "reports";
  return loop;
}

std::string DedupKey(const ReportJob& job, const ReportPeriod& period) {
  return "report:" + job.name + ":" + period.key;
}

std::vector<std::int64_t> Recipients(db::Transaction& tx, const ReportJob& job) {
  if (job.recipient_ids) return *job.recipient_ids;
  const db::Result rows = tx.Exec(queries::kAdminIds);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < rows.Rows(); ++i) ids.push_back(rows.Int(i, 0));
  return ids;
}

std::string NoRecipientReason(const ReportJob& job) {
  return job.recipient_ids ? "no recipient: none of the listed users exists"
                           : "no recipient: no user has admin = true";
}

}  // namespace

std::optional<ReportMessage> MessageFor(const ReportJob& job, const ReportPeriod& period,
                                        const ReportContent& content) {
  if (const auto* summary = std::get_if<SummaryContent>(&content)) {
    if (summary->text.empty()) return std::nullopt;
    return FitNotificationLimits(
        {summary->title.value_or(SummaryTitle(job, period)), summary->text});
  }
  const auto& numbers = std::get<AnomalyContent>(content);
  const std::vector<Anomaly> found =
      DetectAnomalies(numbers.today, numbers.baseline, job.threshold);
  if (found.empty()) return std::nullopt;
  return FitNotificationLimits(RenderAnomalies(found, job.locale));
}

Runner::Runner(db::Pool& pool, std::vector<ReportJob> jobs, ReportSource& source,
               const core::Clock& clock, core::MetricsRegistry& metrics, RunnerSettings settings)
    : pool_(pool),
      jobs_(std::move(jobs)),
      source_(source),
      clock_(clock),
      settings_(settings),
      notifications_(metrics),
      loop_(
          LoopSettings(), [this](const db::StepContext&) { return Step(); }, metrics) {
  for (const ReportJob& job : jobs_) {
    const core::Labels labels{{"job", job.name}};
    metrics_.push_back({
        &metrics.GetCounter("chopar_report_runs_total", "Reports committed by this process",
                            labels),
        &metrics.GetCounter("chopar_report_failures_total",
                            "Report runs that did not happen (source failed, no recipient)",
                            labels),
        &metrics.GetGauge("chopar_report_last_success_timestamp_seconds",
                          "Unix time of the job's last report (by any instance)", labels),
    });
  }
}

Runner::~Runner() { Stop(); }

TickResult Runner::RunOnce() {
  TickResult result;
  const core::TimePoint now = clock_.Now();
  const std::vector<Occurrence> due = DueOccurrences(jobs_, now);
  if (due.empty()) return result;
  const std::vector<Occurrence> pending = NotDone(jobs_, due, LoadDone(pool_, jobs_, due));

  // A job whose source failed is not asked again in this tick (its later
  // periods would fail alike); the other jobs go on.
  std::set<std::size_t> failed_jobs;
  for (const Occurrence& occurrence : pending) {
    if (result.ran || failed_jobs.contains(occurrence.job) || loop_.Stopping()) {
      result.pending = true;
      continue;
    }
    const ReportJob& job = jobs_[occurrence.job];
    std::optional<ReportMessage> message;
    try {
      message =
          MessageFor(job, occurrence.period, source_.Fetch(job, occurrence.period, occurrence.due));
    } catch (const std::exception& e) {
      // SourceError, or anything else a source threw: one broken job must
      // not hold up the others (nor the loop).
      Fail(occurrence, e.what(), now);
      failed_jobs.insert(occurrence.job);
      ++result.failures;
      result.pending = true;
      continue;
    }
    const Committed committed = Commit(occurrence, message, now);
    switch (committed.outcome) {
      case CommitOutcome::kReportedElsewhere:
        spdlog::info("report {} {}: already reported by another instance", job.name,
                     occurrence.period.key);
        ++result.reported_elsewhere;
        break;
      case CommitOutcome::kNoRecipient:
        Fail(occurrence, NoRecipientReason(job), now);
        failed_jobs.insert(occurrence.job);
        ++result.failures;
        result.pending = true;
        break;
      case CommitOutcome::kCommitted:
        result.ran = occurrence;
        result.sent = message.has_value();
        result.recipients = committed.recipients;
        metrics_[occurrence.job].runs->Inc();
        metrics_[occurrence.job].last_success->Set(
            std::chrono::duration<double>(now.time_since_epoch()).count());
        if (message) {
          spdlog::info(
              "report {} {}: sent to {} recipient(s) (due {}, {} s late)", job.name,
              occurrence.period.key, committed.recipients, core::FormatRfc3339(occurrence.due),
              std::chrono::duration_cast<std::chrono::seconds>(now - occurrence.due).count());
        } else {
          spdlog::info("report {} {}: nothing to report (due {})", job.name, occurrence.period.key,
                       core::FormatRfc3339(occurrence.due));
        }
        break;
    }
  }
  return result;
}

Runner::Committed Runner::Commit(const Occurrence& occurrence,
                                 const std::optional<ReportMessage>& message, core::TimePoint now) {
  const ReportJob& job = jobs_[occurrence.job];
  const std::string now_text = core::FormatRfc3339Micros(now);
  auto tx = pool_.Begin("report_run");
  if (tx.Exec(queries::kClaimPeriod, job.name, occurrence.period.key,
              core::FormatRfc3339Micros(occurrence.due), now_text)
          .Empty()) {
    return {CommitOutcome::kReportedElsewhere, 0};
  }

  int recipients = 0;
  std::vector<hub::BatchItemResult> notified;
  if (message) {
    std::vector<hub::NotificationRequest> requests;
    for (std::int64_t user : Recipients(tx, job)) {
      hub::NotificationRequest request;
      request.user_id = user;
      request.type = job.kind == ReportKind::kSummary ? "report.summary" : "report.anomaly";
      request.title = message->title;
      request.body = message->body;
      request.dedup_key = DedupKey(job, occurrence.period);
      request.data = {{"report", job.name},
                      {"period", occurrence.period.key},
                      {"due_at", core::FormatRfc3339(occurrence.due)}};
      requests.push_back(std::move(request));
    }
    notified = hub::NotifyService::NotifyIn(tx, requests, now);
    for (const hub::BatchItemResult& item : notified) {
      if (std::holds_alternative<hub::NotifyResult>(item)) {
        ++recipients;
      } else {
        spdlog::warn("report {} {}: {}", job.name, occurrence.period.key,
                     std::get<core::RequestError>(item).what());
      }
    }
    // Rolled back: nothing is recorded and the period is tried again.
    if (recipients == 0) return {CommitOutcome::kNoRecipient, 0};
  }
  tx.Defer(queries::kFinishRun, job.name, occurrence.period.key, recipients, now_text);
  tx.Commit();
  notifications_.CountCommitted(notified);
  return {CommitOutcome::kCommitted, recipients};
}

void Runner::Fail(const Occurrence& occurrence, const std::string& reason, core::TimePoint now) {
  const ReportJob& job = jobs_[occurrence.job];
  metrics_[occurrence.job].failures->Inc();
  spdlog::warn("report {} {}: not run, tried again at the next tick: {}", job.name,
               occurrence.period.key, reason);
  RecordFailure(pool_, job.name, reason, now);
}

void Runner::LoadLastSuccess() {
  const auto states = LoadJobStates(pool_, jobs_);
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    const auto state = states.find(jobs_[i].name);
    if (state != states.end() && state->second.last_success_at) {
      metrics_[i].last_success->Set(
          std::chrono::duration<double>(state->second.last_success_at->time_since_epoch()).count());
    }
  }
}

void Runner::Start() {
  if (jobs_.empty()) return;
  try {
    LoadLastSuccess();
  } catch (const std::exception& e) {
    spdlog::warn("reports: cannot read the jobs' last success yet: {}", e.what());
  }
  loop_.Start();
}

void Runner::Stop() { loop_.StopAndJoin(); }

db::Next Runner::Step() {
  const TickResult result = RunOnce();
  if (result.pending) return db::Next::SleepUpTo(settings_.tick);
  const core::TimePoint now = clock_.Now();
  milliseconds wait = settings_.tick;
  for (const ReportJob& job : jobs_) {
    if (const auto next = NextOccurrence(job, now)) {
      wait = std::min(wait, std::chrono::ceil<milliseconds>(*next - now));
    }
  }
  return db::Next::SleepUpTo(wait);
}

}  // namespace chopar::reports
