#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"
#include "delivery/claim.hpp"

namespace chopar::delivery {

// A lease covers what is being sent now (docs/RELIABILITY.md, "Deliveries"):
// the statements that start a channel's batch and keep its rows while the
// provider answers. `now` is as for ClaimBatch (nullopt: the database's
// clock); `lease` how long each stamp holds.

// Just before a channel's batch is handed to its provider: for the rows of
// `claims` this worker still owns, stamps a fresh lease and marks the send
// started (from then on, a lease that runs out means "outcome unknown", see
// PreDecide). Returns the ids it may send; a row missing was taken back by
// another worker while it waited for its channel's turn, or canceled with
// its broadcast (broadcast/stop_walk.hpp), and must not be sent. One short statement. Throws db::DbError / db::PoolTimeout (then
// nothing changed). Thread-safe.
std::vector<std::int64_t> BeginSends(db::Pool& pool, std::optional<core::TimePoint> now,
                                     std::span<const ClaimKey> claims, std::chrono::seconds lease);

// Re-stamps the lease of every row of `claims` this worker still owns;
// returns the ids renewed. Throws as BeginSends.
std::vector<std::int64_t> RenewLeases(db::Pool& pool, std::optional<core::TimePoint> now,
                                      std::span<const ClaimKey> claims, std::chrono::seconds lease);

// The heartbeat of a worker's sends in progress: a db::BackgroundLoop
// ("delivery_leases", one thread, started at construction) that every
// third of the lease re-stamps, in one statement on `pool`, the lease of
// every row held through Keep(). A failed renewal (the database restarting)
// is retried with a backoff capped at a quarter of that interval and at
// 1 s, so a lease outlives a restart shorter than about two thirds of it.
// No statement runs while nothing is held.
//
// HoldsUntil() says, on the steady clock, until when the lease of a kept
// batch is known to hold: the start of the statement that last stamped it,
// plus the lease (the database stamped it at or after that instant). The
// worker records outcomes with retries up to then.
//
// The pool, clock and registry must outlive the keeper. Thread-safe.
class LeaseKeeper {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  LeaseKeeper(db::Pool& pool, const core::Clock& clock, std::chrono::seconds lease,
              core::MetricsRegistry& metrics);
  ~LeaseKeeper();  // stops the heartbeat
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  // Rows kept alive while the handle lives. Move-only.
  class Kept {
   public:
    Kept(Kept&& other) noexcept;
    Kept& operator=(Kept&&) = delete;
    Kept(const Kept&) = delete;
    ~Kept();
    [[nodiscard]] SteadyTime HoldsUntil() const;
    // Stops renewing these rows (their outcome is recorded); the rest of
    // the batch stays kept.
    void Forget(std::span<const ClaimKey> claims);

   private:
    friend class LeaseKeeper;
    Kept(LeaseKeeper* keeper, std::uint64_t id) : keeper_(keeper), id_(id) {}
    LeaseKeeper* keeper_;
    std::uint64_t id_;
  };

  // Keeps the leases of `claims`, last stamped by a statement started at
  // `stamped_at`, until the handle goes.
  Kept Keep(std::vector<ClaimKey> claims, SteadyTime stamped_at);

  // One renewal of everything kept (the heartbeat's step; tests call it).
  // Returns how many rows were renewed. Throws db::DbError / db::PoolTimeout.
  int RenewOnce();

  [[nodiscard]] std::chrono::milliseconds interval() const { return interval_; }

 private:
  struct Batch {
    std::vector<ClaimKey> claims;
    SteadyTime stamped_at;
  };

  db::Next Step();

  db::Pool& pool_;
  const core::Clock& clock_;
  const std::chrono::seconds lease_;
  const std::chrono::milliseconds interval_;

  mutable std::mutex mutex_;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, Batch> kept_;

  // Last: stopped before the members its step uses go.
  db::BackgroundLoop loop_;
};

}  // namespace chopar::delivery
