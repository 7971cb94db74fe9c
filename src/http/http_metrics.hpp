#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "core/metrics.hpp"

namespace chopar::http {

// The HTTP server's metrics in the registry it is given:
//   chopar_http_requests_total{route,status}        answered requests
//   chopar_http_request_duration_seconds{route}     arrival → response
//   chopar_http_connections                         open connections, streams included
//   chopar_http_streams                             open Server-Sent Events streams
// Each (route) and (route, status) label set is resolved in the registry the
// first time it is seen and kept: a request then costs a shared lock and two
// atomic updates, never a registry lookup. The registry must outlive this.
// Thread-safe.
class HttpMetrics {
 public:
  explicit HttpMetrics(core::MetricsRegistry& registry);
  HttpMetrics(const HttpMetrics&) = delete;
  HttpMetrics& operator=(const HttpMetrics&) = delete;

  // One answered request. `route` is the matched route's label
  // ("GET /v1/users/{id}") or Dispatcher::kUnmatchedRoute; `status` a
  // status code (100–599; anything else is counted as 500).
  void Record(std::string_view route, int status, double seconds);

  core::Gauge& connections() { return connections_; }
  core::Gauge& streams() { return streams_; }

 private:
  static constexpr int kFirstStatus = 100;
  static constexpr int kLastStatus = 599;
  struct Route {
    explicit Route(core::Histogram& d) : duration(d) {}
    core::Histogram& duration;
    // Resolved on first use; index: status - kFirstStatus.
    std::array<std::atomic<core::Counter*>, kLastStatus - kFirstStatus + 1> by_status{};
  };
  Route& RouteFor(std::string_view route);
  core::Counter& CounterFor(Route& metrics, std::string_view route, int status);

  core::MetricsRegistry& registry_;
  core::Gauge& connections_;
  core::Gauge& streams_;
  std::shared_mutex mutex_;  // guards routes_ (the map, not the Route values)
  std::map<std::string, std::unique_ptr<Route>, std::less<>> routes_;
};

}  // namespace chopar::http
