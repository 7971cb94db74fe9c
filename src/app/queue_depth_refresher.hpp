#pragma once

#include <chrono>
#include <string>

#include "core/metrics.hpp"
#include "db/background_loop.hpp"
#include "db/pool.hpp"

namespace chopar::app {

// Keeps chopar_delivery_queue_depth (delivery/delivery_metrics.hpp) fresh
// off the request path: one db::BackgroundLoop thread ("queue depth") reads
// it every `period` on a one-connection pool of its own to the database of
// `database` (connected the same way; its size and acquire timeout are the
// refresher's own), with a statement timeout. A /metrics scrape renders the
// last value and never waits on the database (a table locked by a migration
// or VACUUM FULL, a full pool). A failed read keeps the last value (the loop
// logs it and backs off). The count reads every queued row's index entry, so
// a broadcast's queue of millions makes it take hundreds of milliseconds:
// the next read waits at least 19 times as long as the last one took
// (RefreshInterval), so the gauge never takes more than a twentieth of the
// database's time on one core.
//
// Start() after construction; the destructor stops the loop. `metrics`
// must outlive this. Thread-safe.
// How long the refresher waits before its next read, when the last read
// took `took`: `period`, or 19 × `took` when that is longer. Pure.
std::chrono::milliseconds RefreshInterval(std::chrono::milliseconds period,
                                          std::chrono::steady_clock::duration took);

class QueueDepthRefresher {
 public:
  QueueDepthRefresher(db::PoolSettings database, core::MetricsRegistry& metrics,
                      std::chrono::milliseconds period = std::chrono::seconds(1));
  ~QueueDepthRefresher();
  QueueDepthRefresher(const QueueDepthRefresher&) = delete;
  QueueDepthRefresher& operator=(const QueueDepthRefresher&) = delete;

  void Start() { loop_.Start(); }
  void Stop() { loop_.StopAndJoin(); }

 private:
  db::Next Step();

  db::Pool pool_;
  core::Gauge& gauge_;
  const std::chrono::milliseconds period_;
  db::BackgroundLoop loop_;
};

}  // namespace chopar::app
