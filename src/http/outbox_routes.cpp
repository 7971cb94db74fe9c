// The transactional outbox's state (docs/api.md "Outbox").
#include "http/outbox_routes.hpp"

#include "http/message.hpp"

namespace chopar::http {
namespace {

struct OutboxStatsRoute {
  std::vector<outbox::OutboxSource> sources;
  Response operator()(const Request&) const {
    outbox::OutboxStats total;
    nlohmann::json per_source = nlohmann::json::object();
    for (const outbox::OutboxSource& source : sources) {
      const outbox::OutboxStats stats = outbox::ReadOutboxStats(source.pool);
      per_source[source.name] = stats.ToJson();
      total += stats;
    }
    nlohmann::json body = total.ToJson();
    body["sources"] = std::move(per_source);
    return JsonResponse(200, body);
  }
};

}  // namespace

void RegisterOutboxRoutes(Router& router, std::vector<outbox::OutboxSource> sources) {
  router.Add("GET", "/v1/outbox/stats", Auth::kServerKey, OutboxStatsRoute{std::move(sources)});
}

}  // namespace chopar::http
