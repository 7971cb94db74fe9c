#pragma once

#include <chrono>
#include <optional>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "templates/template_store.hpp"
#include "workflow/engine/due_loop.hpp"

namespace chopar::workflow::engine {

struct ReleaserSettings {
  int batch = 500;                              // delayed notifications per transaction
  std::chrono::milliseconds max_sleep{60'000};  // the polling fallback
};

// Releases delayed notifications (send_at / delay_seconds in the future;
// docs/api.md "Workflows"). Each batch is one transaction: lock the due
// rows of chopar.delayed_notifications (FOR UPDATE SKIP LOCKED), create
// their notifications with hub::NotifyService::NotifyIn under the ids drawn
// when they were asked for (which sends the inbox and delivery NOTIFYs at
// commit), and delete the rows. A crash before COMMIT leaves them due; any
// number of Releasers in any processes release each exactly once.
//
// Time: the database's now() when `clock` is real, the clock's time
// otherwise (tests). A request that no longer makes a notification (its
// type's template, which gave it its title, is gone; a stored request that
// no longer parses) is kept, marked failed with the reason (failed_at,
// last_error) in the same transaction, and left out of the due set: never
// released, never retried. Each is logged (error, with the row's id and the
// reason) and counted.
// Metrics: chopar_notifications_created_total for what it created,
// chopar_delayed_notifications_invalid_total for what it kept as failed,
// and the loop's ("delayed"). The pool, clock, registry and templates (may be null)
// must outlive it.
class Releaser {
 public:
  Releaser(db::Pool& pool, const core::Clock& clock, core::MetricsRegistry& metrics,
           const templates::TemplateLookup* templates, ReleaserSettings settings = {});
  ~Releaser();
  Releaser(const Releaser&) = delete;
  Releaser& operator=(const Releaser&) = delete;

  // Releases everything due, batch after batch, until a batch is not full
  // or Stop() was called; returns how many delayed notifications it
  // released. Throws db::DbError / db::PoolTimeout (the batch in progress
  // stays due). Thread-safe.
  int RunOnce() { return loop_.RunOnce(); }

  // When the earliest delayed notification is due (nullopt: none). One
  // indexed lookup. Throws db::DbError.
  std::optional<core::TimePoint> NextDue();

  // One loop thread: RunOnce(), then sleep until the earliest due_at (at
  // most settings.max_sleep), woken by NOTIFY db::kDelayedChannel when a
  // new one is asked for. Call once.
  void Start() { loop_.Start(); }
  // Stops and joins; the batch in progress commits or rolls back. Idempotent.
  void Stop() { loop_.Stop(); }

 private:
  int ReleaseBatch(bool& full);

  db::Pool& pool_;
  const core::Clock& clock_;
  const templates::TemplateLookup* templates_;
  const ReleaserSettings settings_;
  hub::NotifyMetrics notify_metrics_;
  core::Counter& invalid_;
  // Declared last: built after, and destroyed before, everything its steps use.
  DueRowLoop loop_;
};

}  // namespace chopar::workflow::engine
