#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "reports/due.hpp"
#include "reports/job.hpp"
#include "reports/source.hpp"
#include "reports/texts.hpp"

namespace chopar::reports {

// How a Runner behaves; a value, set once at construction.
struct RunnerSettings {
  // The check interval: after a report, the next one of a backlog waits this
  // long (reports arrive one by one, in order, not as a flood), and so does
  // another try of a job whose source failed. Also the longest idle sleep.
  std::chrono::milliseconds tick{std::chrono::seconds(60)};
};

// What one RunOnce() did.
struct TickResult {
  std::optional<Occurrence> ran;  // the report committed by this tick, if any
  bool sent = false;              // it created notifications (false: nothing to report)
  int recipients = 0;             // notifications it created or found by their dedup key
  int failures = 0;               // runs that did not happen (source failed, no recipient)
  int reported_elsewhere = 0;     // occurrences another instance reported first
  bool pending = false;           // due occurrences not yet reported remain
};

// The report message of a job's content, or nullopt when there is nothing
// to report: an anomaly check that found nothing (silence means all is
// well), or a summary with an empty text. Cut to the notification limits.
// Pure.
std::optional<ReportMessage> MessageFor(const ReportJob& job, const ReportPeriod& period,
                                        const ReportContent& content);

// Runs the report jobs (docs/configuration.md "[[reports]]"). Each tick:
// the occurrences that are due and inside their catch-up window
// (DueOccurrences) whose period is not in report_runs are taken oldest
// first; for each, the content is fetched with no transaction open
// (ReportSource), then ONE transaction inserts report_runs(job, period_key)
// — ON CONFLICT DO NOTHING: already reported, stop — and one notification
// per recipient through hub::NotifyService::NotifyIn with dedup_key
// "report:<job>:<period_key>", type "report.summary" / "report.anomaly".
// The tick ends after the first report committed: at most one report per
// tick per instance.
//
// A source that fails (SourceError, or any other exception it throws), or a
// run with no recipient (no admin user, no listed user exists), records
// nothing but the job's last_error:
// that occurrence is tried again at the next tick while its window lasts;
// other jobs go on. A crash or a lost connection before COMMIT leaves the
// period unreported (any instance does it later); after COMMIT it is
// reported and never again. Each recipient's delivery then retries on its
// own in the delivery pipeline, so one admin who blocked the bot causes no
// repeat to the others.
//
// Metrics, registered in `metrics` at construction, per job:
//   chopar_report_runs_total{job}                     reports committed by this process
//   chopar_report_failures_total{job}                 runs that did not happen
//   chopar_report_last_success_timestamp_seconds{job} the job's last report (any instance,
//                                                     as of this process's last look)
// plus chopar_notifications_created_total for the notifications it commits,
// and the loop's (db::BackgroundLoop, loop="reports"). Logs one INFO line per
// report, one WARN line per failure.
//
// Time comes from `clock`. The pool, source, clock and registry must
// outlive the Runner. Thread-safe.
class Runner {
 public:
  Runner(db::Pool& pool, std::vector<ReportJob> jobs, ReportSource& source,
         const core::Clock& clock, core::MetricsRegistry& metrics, RunnerSettings settings = {});
  ~Runner();  // Stop()
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // One tick at the clock's now (see above). Throws db::DbError /
  // db::PoolTimeout when the database fails outside the source; a run in
  // progress is then rolled back and stays due.
  TickResult RunOnce();

  // Reads each job's last success from the database into the metrics, then
  // starts the loop thread: RunOnce(), then sleep one tick while
  // occurrences are pending, else until the next occurrence (at most one
  // tick). Database failures are logged and retried with backoff; they
  // never end the loop. Call once.
  void Start();
  // Lets a tick in progress finish and joins the thread. Idempotent.
  void Stop();

  [[nodiscard]] const std::vector<ReportJob>& jobs() const { return jobs_; }

 private:
  struct JobMetrics {
    core::Counter* runs;
    core::Counter* failures;
    core::Gauge* last_success;
  };
  enum class CommitOutcome { kCommitted, kReportedElsewhere, kNoRecipient };
  struct Committed {
    CommitOutcome outcome = CommitOutcome::kCommitted;
    int recipients = 0;
  };

  Committed Commit(const Occurrence& occurrence, const std::optional<ReportMessage>& message,
                   core::TimePoint now);
  void Fail(const Occurrence& occurrence, const std::string& reason, core::TimePoint now);
  void LoadLastSuccess();
  db::Next Step();

  db::Pool& pool_;
  const std::vector<ReportJob> jobs_;
  ReportSource& source_;
  const core::Clock& clock_;
  const RunnerSettings settings_;
  std::vector<JobMetrics> metrics_;  // per job, in jobs_ order
  hub::NotifyMetrics notifications_;
  // Declared last: built after, and destroyed before, everything its steps use.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::reports
