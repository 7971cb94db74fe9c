#include "delivery/delivery_metrics.hpp"

#include <spdlog/spdlog.h>

#include <memory>

#include "delivery/queries.hpp"

namespace chopar::delivery {

DeliveryMetrics& DeliveryMetrics::Global() {
  static DeliveryMetrics metrics;
  return metrics;
}

DeliveryMetrics::DeliveryMetrics()
    : queue_depth_(core::MetricsRegistry::Global().GetGauge(
          "chopar_delivery_queue_depth", "Deliveries queued or being sent.")) {
  auto& registry = core::MetricsRegistry::Global();
  constexpr std::array<const char*, 3> kStatuses = {"sent", "failed", "skipped"};
  for (core::ChannelKind kind : core::kAllChannels) {
    const std::string channel(core::ChannelName(kind));
    for (std::size_t s = 0; s < kStatuses.size(); ++s) {
      totals_[kind][s] =
          &registry.GetCounter("chopar_deliveries_total", "Deliveries that reached a final status.",
                               {{"channel", channel}, {"status", kStatuses[s]}});
    }
    latency_[kind] =
        &registry.GetHistogram("chopar_delivery_latency_seconds",
                               "Time from notification to sent delivery.", {{"channel", channel}});
  }
}

void DeliveryMetrics::Count(core::ChannelKind channel, Final status, int n) {
  if (n > 0) totals_[channel][static_cast<std::size_t>(status)]->Inc(n);
}

void DeliveryMetrics::ObserveLatency(core::ChannelKind channel, double seconds) {
  latency_[channel]->Observe(seconds);
}

void RefreshQueueDepth(db::Pool& pool) {
  auto conn = pool.Acquire();
  const auto depth = conn->Exec(queries::kQueueDepth);
  DeliveryMetrics::Global().queue_depth().Set(static_cast<double>(depth.Int(0, 0)));
}

void RegisterQueueDepthCollector(const std::string& conninfo) {
  auto pool = std::make_shared<db::Pool>(conninfo, 1, std::chrono::seconds(1));
  core::MetricsRegistry::Global().AddCollector([pool] {
    try {
      RefreshQueueDepth(*pool);
    } catch (const std::exception& e) {
      spdlog::warn("delivery queue depth not refreshed: {}", e.what());
    }
  });
}

}  // namespace chopar::delivery
