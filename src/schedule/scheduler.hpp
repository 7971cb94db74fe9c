#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "schedule/scheduler_metrics.hpp"
#include "schedule/settings.hpp"

namespace chopar::schedule {

// What one RunOnce() did.
struct SchedulerRunStats {
  int batches = 0;     // firing transactions committed
  int claimed = 0;     // schedules decided on
  int fired = 0;       // occurrences that created their notification
  int duplicates = 0;  // occurrences whose notification existed already (dedup key)
  int skipped = 0;     // occurrences skipped by the catch-up policy
  int failed = 0;      // schedules whose next firing could not be computed (last_error set)

  SchedulerRunStats& operator+=(const SchedulerRunStats& other) {
    batches += other.batches;
    claimed += other.claimed;
    fired += other.fired;
    duplicates += other.duplicates;
    skipped += other.skipped;
    failed += other.failed;
    return *this;
  }
};

// The earliest next_fire_at of enabled schedules and how many are due.
struct DueState {
  std::optional<core::TimePoint> next_fire_at;  // nullopt: no enabled schedule will fire
  std::int64_t due = 0;
};

// Fires schedules (docs/api.md "Schedules", "Firing"). Each batch is one transaction:
// claim due schedules (next_fire_at <= now) with FOR UPDATE SKIP LOCKED,
// decide per schedule which occurrences fire (catchup.hpp), create their
// notifications through hub::NotifyService::NotifyIn with dedup_key
// "schedule:<key>:<unix due seconds>" and data.due_at / data.schedule, and
// advance next_fire_at past now — all committed together. Any number of
// Schedulers, in any number of processes, may run against one database: an
// occurrence can never fire twice (the claim lock, the advanced next_fire_at
// and the dedup key), and a crash before COMMIT loses nothing (the schedule
// is still due).
//
// Firing ahead (settings.prepare > 0): when the earliest due instant is that
// close, each loop writes the firings of that instant, batch after batch, in
// one transaction with the instant as their `now` (created_at, the
// deliveries' due time, last_fired_at), waits until the clock reaches it and
// commits then. Nothing is visible before the commit; thousands of
// occurrences due at once appear together at their instant. The guarantees
// are those of a firing at the instant: a crash or Stop() before the commit
// rolls back and the schedules are still due; other schedulers skip the
// locked rows.
//
// Time comes from `clock`; metrics go to `metrics` (SchedulerMetrics). The
// pool, clock and registry must outlive the Scheduler.
class Scheduler {
 public:
  Scheduler(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
            SchedulerSettings settings = {});
  // Stops if running and joins the threads.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Fires everything due at the clock's now, batch after batch, until a
  // batch claims fewer than settings.batch (the rest, if any, is held by
  // other schedulers) or Stop() is called. Throws db::DbError /
  // db::PoolTimeout when the database fails; the batch in progress is rolled
  // back and stays due. Thread-safe: may run concurrently with itself and the
  // loop started by Start().
  SchedulerRunStats RunOnce();

  // Fires the schedules due at `instant` (a time after the clock's now)
  // ahead of it: claims and writes them in one transaction, batch after
  // batch, while the clock is before the instant, then waits until the
  // clock reaches it and commits. Schedules already due now are left to
  // RunOnce(). Returns what was committed; nothing (all zero) when Stop()
  // came first: the transaction is rolled back and the schedules stay due.
  // Throws like RunOnce(). Thread-safe, like RunOnce().
  SchedulerRunStats FireAhead(core::TimePoint instant);

  // The idle lookup (an indexed min and a count of due entries, never a scan
  // of all schedules); also sets the chopar_schedules_due gauge. Throws
  // db::DbError.
  DueState LookUpDue();

  // Starts settings.concurrency loop threads (RunOnce, then sleep until the earliest
  // next_fire_at, woken early by NOTIFY db::kSchedulesChannel on one
  // dedicated listening connection, at most settings.max_sleep) and
  // the listener thread. Database failures are logged and retried with
  // backoff; they never end the loop (see db::BackgroundLoop, loop
  // "scheduler"). Call once.
  void Start();

  // Stops claiming; the batch in progress commits (or rolls back on error),
  // a firing waiting for its instant rolls back, and the threads are
  // joined. Idempotent.
  void Stop();

  [[nodiscard]] const SchedulerSettings& settings() const { return settings_; }

 private:
  struct BatchResult {
    SchedulerRunStats stats;
    bool more = false;  // the claim was full or rows were left for the next batch: look again
    std::vector<hub::BatchItemResult> notified;  // one per occurrence fired
    std::vector<core::TimePoint> due;            // its due instant
  };
  // Claims one batch of the schedules due at `now` (after `after`, if set)
  // and writes their firings into `tx`, deciding as of `now`; commits
  // nothing.
  BatchResult WriteBatch(db::Transaction& tx, core::TimePoint now,
                         std::optional<core::TimePoint> after);
  BatchResult FireBatch(core::TimePoint now);
  // Counts a committed batch's firings: metrics (lag up to `committed_at`)
  // and stats.fired / stats.duplicates.
  void Account(BatchResult& batch, core::TimePoint committed_at);
  // Waits until the clock reaches `instant`; false when Stop() came first.
  bool WaitUntil(core::TimePoint instant);
  // The step of each loop thread: RunOnce(), then FireAhead() the next
  // instant when it is within settings.prepare, else sleep for IdleWait().
  db::Next Step();
  // How long to sleep after a RunOnce() that did `last`, with `due` looked
  // up after it: until the earliest next_fire_at (less settings.prepare),
  // at most settings.max_sleep. When something is still due: zero (step
  // again) if `last` claimed anything, else settings.busy_retry (it is held
  // by other schedulers).
  std::chrono::milliseconds IdleWait(const SchedulerRunStats& last, const DueState& due);

  db::Pool& pool_;
  const core::Clock& clock_;
  const SchedulerSettings settings_;
  SchedulerMetrics metrics_;
  // Stop() ends a FireAhead() waiting for its instant.
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stop_requested_ = false;
  // Declared last: built after, and destroyed before, everything its steps use.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::schedule
