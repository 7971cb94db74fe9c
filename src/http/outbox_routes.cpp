// The transactional outbox's state (docs/api.md "Outbox").
#include "http/outbox_routes.hpp"

#include "http/message.hpp"

namespace chopar::http {
namespace {

// {"pending", "dispatched", "failed_attempts", "oldest_pending_age_seconds"}.
nlohmann::json OutboxStatsView(const outbox::OutboxStats& stats) {
  return {{"pending", stats.pending},
          {"dispatched", stats.dispatched},
          {"failed_attempts", stats.failed_attempts},
          {"oldest_pending_age_seconds", stats.oldest_pending_age_seconds}};
}

struct OutboxStatsRoute {
  std::vector<outbox::OutboxSource> sources;
  Response operator()(const Request&) const {
    outbox::OutboxStats total;
    nlohmann::json per_source = nlohmann::json::object();
    for (const outbox::OutboxSource& source : sources) {
      const outbox::OutboxStats stats = outbox::ReadOutboxStats(source.pool);
      per_source[source.name] = OutboxStatsView(stats);
      total += stats;
    }
    nlohmann::json body = OutboxStatsView(total);
    body["sources"] = std::move(per_source);
    return JsonResponse(200, body);
  }
};

}  // namespace

void RegisterOutboxRoutes(Router& router, std::vector<outbox::OutboxSource> sources) {
  router.Add("GET", "/v1/outbox/stats", Auth::kServerKey, OutboxStatsRoute{std::move(sources)});
}

}  // namespace chopar::http
