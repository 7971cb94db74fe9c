#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/backoff.hpp"
#include "core/clock.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "delivery/channel_set.hpp"
#include "delivery/claim.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/settings.hpp"

namespace chopar::delivery {

// What one RunOnce() did.
struct RunStats {
  int claimed = 0;   // rows the claim decided on; 0 means nothing was due
  int sent = 0;
  int retried = 0;   // back to queued for a later attempt
  int failed = 0;    // at claim (lease lost on the last attempt) or after sending
  int skipped = 0;   // over the hourly limit
  int deferred = 0;  // quiet hours
  int ignored = 0;   // answers that arrived after the claim was taken back
};

// Delivers queued deliveries (docs/ARCHITECTURE.md "Delivering"): claim a batch in one short
// transaction, send with no transaction open and no pooled connection held,
// record the outcomes in one short transaction that only applies while the
// claim is still ours. Any number of Workers, in any number of processes,
// may run against one database; correctness comes from row locks, advisory
// locks and claim tokens, never from in-process state.
//
// Time comes from `clock` (leases, backoff, quiet hours, the hourly window
// are all computed from it and passed to SQL); metrics go to `metrics`
// (DeliveryMetrics and the loop's). The pool, channels, clock, registry and
// random source must outlive the Worker.
class Worker {
 public:
  Worker(db::Pool& pool, ChannelSet channels, const core::Clock& clock,
         core::MetricsRegistry& metrics, WorkerSettings settings = {},
         core::Random& random = core::ThreadLocalRandom::Instance());
  // Stops (with the drain deadline) if running, then joins every thread —
  // which waits for any Send() still in progress: channels must time out.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // One claim → send → record step. Returns what it did. Throws
  // db::DbError / db::PoolTimeout when the database fails during the claim or
  // the record (then the affected deliveries are retried later: unclaimed
  // rows stay queued, claimed ones come back when their lease runs out).
  // Channel exceptions do not escape: they become retries. Thread-safe; may
  // run concurrently with itself and with the loops started by Start().
  RunStats RunOnce();

  // Starts settings.concurrency loop threads, each repeating RunOnce(); when
  // a claim finds nothing a loop sleeps until a NOTIFY on
  // db::kDeliveriesChannel (one dedicated listening connection per Worker),
  // the next due row or lease expiry, or the poll interval, whichever comes
  // first. Database failures are logged and retried with backoff; they never
  // end a loop (see db::BackgroundLoop, loop "delivery"). Call once.
  void Start();

  // SIGTERM drain: stops claiming, lets in-flight sends finish for up to
  // `deadline` (real time), then releases the claims still held back to
  // `queued` (only where the claim token still matches). Returns after that,
  // even if a Send() is still blocked (its late answer is then ignored; the
  // destructor joins the thread). Idempotent.
  void Stop(std::chrono::milliseconds deadline);
  void Stop() { Stop(settings_.drain_deadline); }

  [[nodiscard]] const WorkerSettings& settings() const { return settings_; }

 private:
  using Claims = std::vector<std::pair<std::int64_t, std::string>>;

  std::vector<channels::Outcome> SendAll(const std::vector<ClaimedDelivery>& claimed);
  RunStats Record(const std::vector<ClaimedDelivery>& claimed,
                  const std::vector<channels::Outcome>& outcomes);
  std::uint64_t RegisterInFlight(const std::vector<ClaimedDelivery>& claimed);
  void UnregisterInFlight(std::uint64_t batch);
  void ReleaseInFlight();

  // The step of each loop thread: RunOnce(), then at once again if it
  // claimed anything, else sleep for IdleWait().
  db::Next Step(const db::StepContext& context);
  // How long an idle loop sleeps after its `empty_claims`-th claim in a row
  // that found nothing: until the next due row or lease expiry, at most the
  // poll interval.
  std::chrono::milliseconds IdleWait(int empty_claims);

  db::Pool& pool_;
  const ChannelSet channels_;
  const core::Clock& clock_;
  const WorkerSettings settings_;
  core::Random& random_;
  DeliveryMetrics metrics_;

  std::mutex inflight_mutex_;
  std::uint64_t next_batch_ = 0;
  std::map<std::uint64_t, Claims> inflight_;

  // Declared last: built after, and destroyed before, everything its steps use.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::delivery
