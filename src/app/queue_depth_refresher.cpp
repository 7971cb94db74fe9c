#include "app/queue_depth_refresher.hpp"

#include <algorithm>

#include "delivery/delivery_metrics.hpp"

namespace chopar::app {
namespace {

// A count that takes longer than this is given up (and tried again): the
// loop must stay stoppable while a table is locked.
constexpr const char* kStatementTimeout = "SET statement_timeout = 2000";

db::BackgroundLoopSettings LoopSettings() {
  db::BackgroundLoopSettings loop;
  loop.name = "queue depth";
  return loop;
}

db::PoolSettings OneConnection(db::PoolSettings database) {
  database.size = 1;
  database.acquire_timeout = std::chrono::seconds(1);
  return database;
}

// The count's share of one core at most: 1 / (1 + kIdlePerBusy).
constexpr int kIdlePerBusy = 19;

}  // namespace

std::chrono::milliseconds RefreshInterval(std::chrono::milliseconds period,
                                          std::chrono::steady_clock::duration took) {
  return std::max(period,
                  std::chrono::duration_cast<std::chrono::milliseconds>(took * kIdlePerBusy));
}

QueueDepthRefresher::QueueDepthRefresher(db::PoolSettings database, core::MetricsRegistry& metrics,
                                         std::chrono::milliseconds period)
    : pool_(OneConnection(std::move(database))),
      gauge_(delivery::QueueDepthGauge(metrics)),
      period_(period),
      loop_(
          LoopSettings(), [this](const db::StepContext&) { return Step(); }, metrics) {}

QueueDepthRefresher::~QueueDepthRefresher() { loop_.StopAndJoin(); }

db::Next QueueDepthRefresher::Step() {
  {
    // Set on every step: a reconnected pool would have lost it.
    auto conn = pool_.Acquire();
    conn->ExecText(kStatementTimeout, {});
  }
  const auto start = std::chrono::steady_clock::now();
  delivery::RefreshQueueDepth(pool_, gauge_);
  return db::Next::SleepUpTo(RefreshInterval(period_, std::chrono::steady_clock::now() - start));
}

}  // namespace chopar::app
