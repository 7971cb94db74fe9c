#include "delivery/delivery_metrics.hpp"

#include "delivery/queries.hpp"

namespace chopar::delivery {

DeliveryMetrics::DeliveryMetrics(core::MetricsRegistry& registry) {
  constexpr std::array<const char*, 4> kStatuses = {"sent", "failed", "skipped", "canceled"};
  for (core::ChannelKind kind : core::AllChannels()) {
    const std::string channel(core::ChannelName(kind));
    for (std::size_t s = 0; s < kStatuses.size(); ++s) {
      totals_[kind][s] = &registry.GetCounter("chopar_deliveries_total",
                                              "Deliveries that reached a final status.",
                                              {{"channel", channel}, {"status", kStatuses[s]}});
    }
    latency_[kind] = &registry.GetHistogram("chopar_delivery_latency_seconds",
                                            "Time from notification to sent delivery.",
                                            {{"channel", channel}});
    outcome_unknown_[kind] = &registry.GetCounter(
        "chopar_deliveries_outcome_unknown_total",
        "Failed deliveries whose request reached the provider and got no answer.",
        {{"channel", channel}});
  }
}

void DeliveryMetrics::Count(core::ChannelKind channel, Final status, int n) {
  if (n > 0) totals_[channel][static_cast<std::size_t>(status)]->Inc(n);
}

void DeliveryMetrics::CountOutcomeUnknown(core::ChannelKind channel, int n) {
  if (n > 0) outcome_unknown_[channel]->Inc(n);
}

void DeliveryMetrics::ObserveLatency(core::ChannelKind channel, double seconds) {
  latency_[channel]->Observe(seconds);
}

core::Gauge& QueueDepthGauge(core::MetricsRegistry& registry) {
  return registry.GetGauge("chopar_delivery_queue_depth", "Deliveries queued or being sent.");
}

void RefreshQueueDepth(db::Pool& pool, core::Gauge& gauge) {
  const auto depth = pool.Acquire()->Exec(queries::kQueueDepth, db::Params());
  gauge.Set(static_cast<double>(depth.Int(0, 0)));
}

}  // namespace chopar::delivery
