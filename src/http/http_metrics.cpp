#include "http/http_metrics.hpp"

#include <mutex>

namespace chopar::http {
namespace {
constexpr const char* kRequestsName = "chopar_http_requests_total";
constexpr const char* kRequestsHelp = "HTTP requests by route and status";
}  // namespace

HttpMetrics::HttpMetrics(core::MetricsRegistry& registry)
    : registry_(registry),
      connections_(registry.GetGauge("chopar_http_connections",
                                     "Open HTTP connections, streams included")),
      streams_(registry.GetGauge("chopar_http_streams", "Open Server-Sent Events streams")) {}

void HttpMetrics::Record(std::string_view route, int status, double seconds) {
  if (status < kFirstStatus || status > kLastStatus) status = 500;
  Route& metrics = RouteFor(route);
  CounterFor(metrics, route, status).Inc();
  metrics.duration.Observe(seconds);
}

HttpMetrics::Route& HttpMetrics::RouteFor(std::string_view route) {
  {
    std::shared_lock lock(mutex_);
    if (const auto it = routes_.find(route); it != routes_.end()) return *it->second;
  }
  std::unique_lock lock(mutex_);
  auto& slot = routes_[std::string(route)];
  if (!slot) {
    slot = std::make_unique<Route>(registry_.GetHistogram(
        "chopar_http_request_duration_seconds",
        "Time from a request's arrival to its response, by route", {{"route", std::string(route)}}));
  }
  return *slot;
}

core::Counter& HttpMetrics::CounterFor(Route& metrics, std::string_view route, int status) {
  std::atomic<core::Counter*>& slot = metrics.by_status[static_cast<std::size_t>(status - kFirstStatus)];
  if (core::Counter* counter = slot.load(std::memory_order_acquire)) return *counter;
  // Two threads may both resolve it: the registry hands both the same counter.
  core::Counter& counter = registry_.GetCounter(
      kRequestsName, kRequestsHelp, {{"route", std::string(route)}, {"status", std::to_string(status)}});
  slot.store(&counter, std::memory_order_release);
  return counter;
}

}  // namespace chopar::http
