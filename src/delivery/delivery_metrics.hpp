#pragma once

#include <array>
#include <string>

#include "core/channel_kind.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"

namespace chopar::delivery {

// The delivery worker's metrics, resolved once in the registry it is given:
//   chopar_deliveries_total{channel, status}     final statuses (sent, failed, skipped,
//                                                canceled)
//   chopar_delivery_latency_seconds{channel}     created → sent
//   chopar_deliveries_outcome_unknown_total{channel}
//                                                of the failed: handed to the provider and no
//                                                answer came (channels/outcome_unknown.hpp)
// Counts are added after the transaction that made them final has committed.
// Thread-safe; the registry must outlive it.
class DeliveryMetrics {
 public:
  explicit DeliveryMetrics(core::MetricsRegistry& registry);

  enum class Final { kSent, kFailed, kSkipped, kCanceled };
  void Count(core::ChannelKind channel, Final status, int n = 1);
  void ObserveLatency(core::ChannelKind channel, double seconds);
  void CountOutcomeUnknown(core::ChannelKind channel, int n);

 private:
  core::PerChannel<std::array<core::Counter*, 4>> totals_{};
  core::PerChannel<core::Histogram*> latency_{};
  core::PerChannel<core::Counter*> outcome_unknown_{};
};

// chopar_delivery_queue_depth (deliveries queued or sending), in `registry`.
core::Gauge& QueueDepthGauge(core::MetricsRegistry& registry);

// Reads the queue depth from the database into `gauge`. Throws db::DbError.
void RefreshQueueDepth(db::Pool& pool, core::Gauge& gauge);

}  // namespace chopar::delivery
