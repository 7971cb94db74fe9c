#pragma once

#include <chrono>
#include <optional>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "workflow/engine/due_loop.hpp"

namespace chopar::workflow::engine {

struct SnoozeReturnerSettings {
  int batch = 500;                              // notifications per transaction
  std::chrono::milliseconds max_sleep{60'000};  // the polling fallback
};

// Brings snoozed notifications back when their snooze ends (docs/api.md
// "Inbox states"): clears snoozed_until, read_at and seen_at, so the item is
// in the default list and the counts again, unread. Each batch is one
// transaction: the due rows locked (FOR UPDATE SKIP LOCKED) and changed in
// one statement (which writes their notification.unsnoozed own events,
// migration 0045), and the NOTIFY that carries the `unsnoozed` state change
// to the users' open streams (hub::InboxStateWakes). A crash before COMMIT
// leaves them snoozed and due; any number of returners in any processes
// return each exactly once.
//
// Time: the database's now() when `clock` is real, the clock's time
// otherwise (tests). Wakes at the earliest snoozed_until, and on NOTIFY
// db::kSnoozesChannel when a snooze is set (it may end earlier).
// Metrics: chopar_snoozed_returned_total, and the loop's ("snooze").
// The pool, clock and registry must outlive it.
class SnoozeReturner {
 public:
  SnoozeReturner(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
                 SnoozeReturnerSettings settings = {});
  ~SnoozeReturner();
  SnoozeReturner(const SnoozeReturner&) = delete;
  SnoozeReturner& operator=(const SnoozeReturner&) = delete;

  // Returns everything due, batch after batch, until a batch is not full
  // or Stop() was called; how many notifications came back. Throws
  // db::DbError / db::PoolTimeout (the batch in progress stays due).
  // Thread-safe.
  int RunOnce() { return loop_.RunOnce(); }

  // When the earliest snooze ends (nullopt: none). Throws db::DbError.
  std::optional<core::TimePoint> NextDue();

  // One loop thread (RunOnce, then asleep until the next end); call once.
  void Start() { loop_.Start(); }
  // Stops and joins; the batch in progress commits or rolls back. Idempotent.
  void Stop() { loop_.Stop(); }

 private:
  int ReturnBatch(bool& full);

  db::Pool& pool_;
  const core::Clock& clock_;
  const SnoozeReturnerSettings settings_;
  core::Counter& returned_;
  // Declared last: built after, and destroyed before, everything its steps use.
  DueRowLoop loop_;
};

}  // namespace chopar::workflow::engine
