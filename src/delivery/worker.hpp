#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
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
#include "delivery/lease.hpp"
#include "delivery/record.hpp"
#include "delivery/settings.hpp"

namespace chopar::delivery {

// What one RunOnce() did.
struct RunStats {
  int claimed = 0;   // rows the claim decided on; 0 means nothing was due
  // When work is next due as the claim saw it (ClaimResult::next_due_ms),
  // when it handed nothing to a provider; unset otherwise.
  std::optional<std::optional<double>> next_due_ms;
  int sent = 0;
  int retried = 0;   // back to queued for a later attempt
  int failed = 0;    // at claim (lease lost on the last attempt) or after sending
  int skipped = 0;   // over the hourly limit or the type's throttle
  int canceled = 0;  // escalate-if-unread: the notification was read
  int deferred = 0;  // quiet hours
  int ignored = 0;   // answers that arrived after the claim was taken back
  // The claim found the horizon of active deliveries lowered
  // (ClaimResult::horizon_lowered): claim again at once.
  bool horizon_lowered = false;
};

// Delivers queued deliveries (docs/ARCHITECTURE.md "The data flow"): claim a
// batch in one short transaction, then channel by channel: confirm the rows
// are still ours and stamp a fresh lease as their send starts (BeginSends),
// send with no transaction open and no pooled connection held while a
// heartbeat keeps the lease of what is being sent (LeaseKeeper), and record
// the outcomes in one short transaction that only applies while the claim
// is still ours. Any number of Workers, in any number of processes, may run
// against one database; correctness comes from row locks, advisory locks
// and claim tokens, never from in-process state.
//
// A lease covers what is being sent now. Rows waiting for their channel's
// turn may be taken back by another worker once their claim's lease runs
// out (they were never handed to a provider, so sending them is safe), and
// are then skipped here. A row whose send started is never released and
// never repeated blindly: if its lease runs out (its worker died, or lost
// the database for longer than a lease) it fails as "outcome unknown"
// unless its channel guards repeats (channels::Channel::GuardsRepeats).
//
// Claims use `pool` (shared with the rest of the process); everything that
// holds a lease — starting a send, the heartbeat, recording outcomes,
// releasing claims — uses a small pool of the worker's own (concurrency + 2
// connections, connected like `pool`'s, pooling mode and session settings
// included), so busy HTTP handlers cannot starve it.
// An outcome is recorded with retries (transient errors, a database
// restart) for as long as its lease is known to hold, renewed meanwhile; if
// that runs out first, the rows are left to their lease (outcome unknown),
// never sent again.
//
// Time: every decision on ownership and due time is made on the database's
// clock (db::SqlNow: the statements read now()) when `clock` is the real time,
// so hosts whose clocks disagree still agree; a simulated clock is handed to
// the statements instead, so tests move leases and windows by moving it.
// Metrics go to `metrics` (DeliveryMetrics, and the loops' "delivery" and
// "delivery_leases"). `templates` (null: no type has one) gives the types'
// throttles to the claim. The pool, channels, clock, registry, templates and
// random source must outlive the Worker.
class Worker {
 public:
  Worker(db::Pool& pool, ChannelSet channels, const core::Clock& clock,
         core::MetricsRegistry& metrics, WorkerSettings settings = {},
         core::Random& random = core::ThreadLocalRandom::Instance(),
         const templates::TemplateLookup* templates = nullptr);
  // Stops (with the drain deadline) if running, then joins every thread —
  // which waits for any Send() still in progress and its record: channels
  // must time out.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // One claim → (begin → send → record) per channel step. Returns what it
  // did. Throws db::DbError / db::PoolTimeout when the database fails during
  // the claim, or stays unreachable while a batch starts or is recorded
  // (then the affected deliveries are retried later: unclaimed rows stay
  // queued, claimed ones come back when their lease runs out — as "outcome
  // unknown" if their send had started). Channel exceptions do not escape:
  // they become retries. Once Stop() was called, the channels not yet begun
  // are released instead of sent. Thread-safe; may run concurrently with
  // itself and with the loops started by Start().
  RunStats RunOnce();

  // Starts settings.concurrency loop threads, each repeating RunOnce(); when
  // a claim finds nothing a loop sleeps until a NOTIFY on
  // db::kDeliveriesChannel (one dedicated listening connection per Worker),
  // the next due row or lease expiry, or the poll interval, whichever comes
  // first. Database failures are logged and retried with backoff; they never
  // end a loop (see db::BackgroundLoop, loop "delivery"). Call once.
  void Start();

  // SIGTERM drain: stops claiming and starting channels' batches, lets
  // in-flight sends finish for up to `deadline` (real time), then releases
  // the rows still held that were never handed to a provider (queued, due
  // now). A send still running is not released: it goes on, its lease kept,
  // and its outcome is recorded when it ends (the destructor waits for it).
  // Idempotent.
  void Stop(std::chrono::milliseconds deadline);
  void Stop() { Stop(settings_.drain_deadline); }

  [[nodiscard]] const WorkerSettings& settings() const { return settings_; }

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  // One channel's part of a claim, claimed when `claimed_at`: begin, send,
  // record. Adds what it did to `stats`.
  void SendPart(core::ChannelKind kind, std::vector<ClaimedDelivery> part, SteadyTime claimed_at,
                RunStats& stats);
  // Hands `started` (whose leases `kept` renews) to the channel and records
  // each outcome as the channel reports it; a message the channel gave no
  // outcome for (it threw) is retried. Throws when a recording fails for
  // good.
  void SendAndRecord(core::ChannelKind kind, std::vector<ClaimedDelivery> started,
                     LeaseKeeper::Kept& kept, SteadyTime claim_holds_until, RunStats& stats);
  // BeginSends / RecordOutcomes, retried on transient errors until
  // `holds_until()` would pass; then the last error is thrown.
  std::vector<std::int64_t> BeginUntil(const std::vector<ClaimedDelivery>& part,
                                       SteadyTime holds_until);
  RecordResult RecordUntil(std::span<const ClaimedDelivery> rows,
                           std::span<const channels::Outcome> outcomes,
                           const std::function<SteadyTime()>& holds_until);
  void Count(const RecordResult& recorded, RunStats& stats);
  // Releases the rows of `claimed` not yet handed over (shutdown); logs.
  void Release(std::span<const ClaimKey> claims, const char* reason);

  std::uint64_t RegisterInFlight(const std::vector<ClaimedDelivery>& claimed);
  void UnregisterInFlight(std::uint64_t batch);
  void ReleaseInFlight();

  // The step of each loop thread: RunOnce(), then at once again if it
  // claimed a full batch, else sleep for IdleWait().
  db::Next Step(const db::StepContext& context);
  // How long an idle loop sleeps after its `empty_claims`-th claim in a row
  // that found nothing (1 after a claim that took less than a batch): until
  // the next due row or lease expiry (`next_due_ms` when the claim asked,
  // else asked now), at most the poll interval.
  std::chrono::milliseconds IdleWait(int empty_claims,
                                     std::optional<std::optional<double>> next_due_ms);

  db::Pool& pool_;
  const ChannelSet channels_;
  const core::Clock& clock_;
  const WorkerSettings settings_;
  const templates::TemplateLookup* templates_;  // the types' throttles; may be null
  core::Random& random_;
  DeliveryMetrics metrics_;
  db::Pool lease_pool_;
  LeaseKeeper leases_;
  ActiveHorizon horizon_;  // bounds every claim of this worker's loops

  std::mutex inflight_mutex_;
  std::uint64_t next_batch_ = 0;
  std::map<std::uint64_t, std::vector<ClaimKey>> inflight_;

  // Declared last: built after, and destroyed before, everything its steps use.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::delivery
