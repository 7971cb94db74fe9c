#pragma once

#include <array>
#include <string>

#include "core/channel_kind.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"

namespace chopar::delivery {

// The worker's metrics in core::MetricsRegistry::Global():
//   chopar_deliveries_total{channel, status}     final statuses (sent, failed, skipped)
//   chopar_delivery_latency_seconds{channel}     created → sent
//   chopar_delivery_queue_depth                  deliveries queued or sending
// References are looked up once; thread-safe.
class DeliveryMetrics {
 public:
  static DeliveryMetrics& Global();

  enum class Final { kSent, kFailed, kSkipped };
  void Count(core::ChannelKind channel, Final status, int n = 1);
  void ObserveLatency(core::ChannelKind channel, double seconds);
  core::Gauge& queue_depth() { return queue_depth_; }

 private:
  DeliveryMetrics();
  core::PerChannel<std::array<core::Counter*, 3>> totals_;  // by Final
  core::PerChannel<core::Histogram*> latency_;
  core::Gauge& queue_depth_;
};

// Reads the queue depth from the database into the gauge. Throws db::DbError.
void RefreshQueueDepth(db::Pool& pool);

// Refreshes the queue-depth gauge before every /metrics rendering, on its own
// one-connection pool to `conninfo` that lives as long as the process (so no
// caller-owned pool can dangle). A failed read logs and keeps the last value.
void RegisterQueueDepthCollector(const std::string& conninfo);

}  // namespace chopar::delivery
