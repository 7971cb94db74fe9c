#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"

namespace chopar::workflow::engine {

// The loop both workflow loops are (a db::BackgroundLoop of one thread):
// rows with a due time, handled in batches until a batch is not full; then
// asleep until the earliest due row (at most `max_sleep`), woken by a
// NOTIFY on `channel` when an earlier one may exist. The owner supplies the
// batch (returns how many rows it handled, sets `full`) and the lookup of
// the next due time; both may throw db::DbError (logged, retried with
// backoff). Thread-safe; the pool, clock and registry must outlive it, and
// so must what the functions capture (declare it last in its owner).
class DueRowLoop {
 public:
  struct Steps {
    std::function<int(bool& full)> batch;
    std::function<std::optional<core::TimePoint>()> next_due;
  };
  DueRowLoop(const db::Pool& pool, std::string name, const char* channel, const core::Clock& clock,
             std::chrono::milliseconds max_sleep, Steps steps, core::MetricsRegistry& metrics);

  // Batches until one is not full or Stop() was called; the rows handled.
  int RunOnce();
  void Start() { loop_.Start(); }
  void Stop() { loop_.StopAndJoin(); }  // idempotent

 private:
  db::Next Step();

  const core::Clock& clock_;
  const std::chrono::milliseconds max_sleep_;
  const Steps steps_;
  db::BackgroundLoop loop_;
};

}  // namespace chopar::workflow::engine
