#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "core/backoff.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "outbox/event.hpp"
#include "outbox/settings.hpp"
#include "outbox/targets.hpp"

namespace chopar::outbox {

// What one RunOnce() did.
struct RelayRunStats {
  int claimed = 0;     // events locked by the claim (0: nothing was due)
  int dispatched = 0;  // every target they route to has them
  int failed = 0;      // some target failed: counted, backed off
};

// Relays one database's chopar.outbox to the targets (docs/outbox.md):
// claim due undispatched events in id order with FOR UPDATE SKIP LOCKED
// (marking them dispatched in the same statement, attempts + 1), publish
// each to every target whose types match (and that does not have it yet),
// then, in the same transaction, put back the events a target failed —
// the attempt counted, the error and the targets that succeeded kept, the
// event backed off (settings.backoff, or a target's Retry-After) — without
// holding back the rest of the batch, and commit.
// At least once: a relay that dies after publishing rolls back, and the
// batch is published again (by it or another relay), so repeats are
// bounded by one batch per crash. Any number of Relays, in any processes,
// may run against one database.
//
// The batch's row locks are held while it is published: targets answer
// within their timeouts, and nobody waits for those rows (other relays skip
// them, the application only inserts). Publishing to several targets runs
// in parallel. A target whose every event of a call failed as unavailable
// (no answer, 5xx) is paused, without being asked, for a doubling time
// (1 s … 60 s, reset by a success): its events back off until the pause
// ends, so a dead target does not slow the batches of the others.
//
// Metrics, registered in `metrics`:
//   chopar_outbox_published_total{target}             events a target took
//   chopar_outbox_publish_failures_total{target}      events a target failed
//   chopar_outbox_publish_latency_seconds{target}     event created_at → published
//   chopar_outbox_dispatched_total{source}            events marked dispatched
// plus the loops' (chopar_loop_*{loop="relay" / "outbox_retention"}).
//
// The pool (on the relayed database), the targets of `routes`, the clock,
// the registry and the random source must outlive the Relay. Thread-safe.
class Relay {
 public:
  // `source` names the relayed database in metrics and logs ("chopar",
  // "application").
  Relay(db::Pool& pool, std::string source, std::vector<Route> routes, RelaySettings settings,
        const core::Clock& clock, core::MetricsRegistry& metrics,
        core::Random& random = core::ThreadLocalRandom::Instance());
  ~Relay();  // Stop()s and joins
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Claims, publishes and records one batch. Throws db::DbError /
  // db::PoolTimeout when the database fails; then nothing was recorded and
  // the batch is due again (possibly published twice). Target failures do
  // not throw: they are the batch's outcomes.
  RelayRunStats RunOnce();

  // Deletes events dispatched more than settings.retention_days ago (none
  // when that is 0), in statements of settings.retention_batch rows, until
  // none is left (or Stop()). Returns how many. Throws db::DbError.
  std::int64_t DeleteExpired();

  // Starts settings.concurrency relay loops (RunOnce at once again after a
  // full batch; otherwise sleep until a NOTIFY on db::kOutboxChannel — when
  // settings.listen — or settings.poll_interval) and one retention loop
  // (DeleteExpired every settings.retention_interval). Call once.
  void Start();

  // Stops claiming; a batch being published may finish and record until
  // `deadline`, after which its transaction rolls back when it ends (its
  // events are then due again). Idempotent.
  void Stop(std::chrono::milliseconds deadline = std::chrono::seconds(10));

  [[nodiscard]] const RelaySettings& settings() const { return settings_; }

 private:
  struct RouteMetrics {
    core::Counter& published;
    core::Counter& failures;
    core::Histogram& latency;
  };
  // A target's pause after calls whose every event failed as unavailable.
  struct Pause {
    int failed_calls = 0;
    core::TimePoint until{};
  };
  // The outcomes of one route for the events it was given.
  struct RouteResult {
    std::vector<std::size_t> positions;  // into the batch
    std::vector<PublishOutcome> outcomes;
  };

  std::vector<Event> Claim(db::Transaction& tx);
  RouteResult PublishRoute(std::size_t route, const std::vector<Event>& batch);
  std::vector<PublishOutcome> CallTarget(std::size_t route, std::span<const Event* const> events);
  void Record(db::Transaction& tx, const std::vector<Event>& batch,
              const std::vector<RouteResult>& results, RelayRunStats& stats);
  db::Next Step();
  db::Next RetentionStep();

  db::Pool& pool_;
  const std::string source_;
  const std::vector<Route> routes_;
  const RelaySettings settings_;
  const core::Clock& clock_;
  core::Random& random_;
  std::vector<RouteMetrics> route_metrics_;
  core::Counter& dispatched_;

  std::mutex pause_mutex_;
  std::vector<Pause> pauses_;  // by route

  // Declared last: built after, and destroyed before, everything their steps use.
  db::BackgroundLoop loop_;
  db::BackgroundLoop retention_loop_;
};

}  // namespace chopar::outbox
