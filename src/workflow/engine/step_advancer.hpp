#pragma once

#include <chrono>
#include <optional>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "templates/template_store.hpp"
#include "workflow/engine/due_loop.hpp"

namespace chopar::workflow::engine {

struct StepAdvancerSettings {
  int batch = 200;                              // runs per transaction
  std::chrono::milliseconds max_sleep{60'000};  // the polling fallback
};

// Moves notifications through their type's workflow steps (docs/api.md
// "Workflows with steps"): each due run (chopar.workflow_runs) is claimed
// with FOR UPDATE SKIP LOCKED, its steps due now are done
// (workflow::AdvanceRun) and what they did is written back in the same
// transaction: the run's next step and due time, its outcomes, and the
// deliveries a channel step sends. A crash before COMMIT leaves the run as
// it was and due; any number of advancers in any processes do each step
// once. A channel step's delivery ending (the trigger of migration 0049)
// makes its run due again.
//
// A run follows its type's current template (tenant's own first); a type
// that no longer has steps ends its runs. A step reads the user's
// preferences and addresses as they are when it is due.
//
// Time: the database's now() when `clock` is real, the clock's time
// otherwise (tests). Wakes at the earliest due run, and on NOTIFY
// db::kWorkflowsChannel. Metrics: chopar_workflow_steps_total{outcome},
// chopar_workflow_runs_advanced_total, and the loop's ("workflow").
// The pool, clock, templates and registry must outlive it.
class StepAdvancer {
 public:
  StepAdvancer(db::Pool& pool, const core::Clock& clock, const templates::TemplateLookup& templates,
               core::MetricsRegistry& metrics, StepAdvancerSettings settings = {});
  ~StepAdvancer();
  StepAdvancer(const StepAdvancer&) = delete;
  StepAdvancer& operator=(const StepAdvancer&) = delete;

  // Advances every due run, batch after batch, until a batch is not full
  // or Stop() was called; how many runs were advanced. Throws db::DbError /
  // db::PoolTimeout (the batch in progress stays due). Thread-safe.
  int RunOnce() { return loop_.RunOnce(); }
  // When the earliest active run is due (nullopt: none). Throws db::DbError.
  std::optional<core::TimePoint> NextDue();

  void Start() { loop_.Start(); }
  void Stop() { loop_.Stop(); }  // idempotent

 private:
  int AdvanceBatch(bool& full);

  db::Pool& pool_;
  const core::Clock& clock_;
  const templates::TemplateLookup& templates_;
  const StepAdvancerSettings settings_;
  core::MetricsRegistry& metrics_;
  core::Counter& advanced_;
  // Declared last: built after, and destroyed before, everything its steps use.
  DueRowLoop loop_;
};

}  // namespace chopar::workflow::engine
