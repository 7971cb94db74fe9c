// Operational endpoints (docs/api.md "Health and metrics").
#include <spdlog/spdlog.h>

#include "core/metrics.hpp"
#include "http/api.hpp"
#include "http/error_response.hpp"

namespace chopar::http {
namespace {

struct Healthz {
  db::Pool& pool;
  Response operator()(const Request&) const {
    try {
      auto conn = pool.Acquire();
      conn->ExecText("SELECT 1", {});
      return JsonResponse(200, {{"status", "ok"}});
    } catch (const std::exception& e) {
      spdlog::warn("health check: the database does not answer: {}", e.what());
      const ErrorInfo error = ToErrorInfo(core::Unavailable("the database does not answer"));
      auto body = error.ToJson();
      body["status"] = "unavailable";
      return JsonResponse(error.status, body);
    }
  }
};

struct Metrics {
  core::MetricsRegistry& registry;
  Response operator()(const Request&) const {
    Response response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = registry.Render();
    return response;
  }
};

}  // namespace

void RegisterSystemRoutes(Router& router, const Dependencies& deps, MetricsAccess metrics_access) {
  RegisterSystemRoutes(router, deps.pool, deps.metrics, metrics_access);
}

void RegisterSystemRoutes(Router& router, db::Pool& pool, core::MetricsRegistry& metrics,
                          MetricsAccess metrics_access) {
  router.Add("GET", "/healthz", Auth::kNone, Healthz{pool});
  switch (metrics_access) {
    case MetricsAccess::kApiKey:
      router.Add("GET", "/metrics", Auth::kServerKey, Metrics{metrics});
      break;
    case MetricsAccess::kPublic:
      router.Add("GET", "/metrics", Auth::kNone, Metrics{metrics});
      break;
    case MetricsAccess::kNotServed:
      break;
  }
}

}  // namespace chopar::http
