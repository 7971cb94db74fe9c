// The providers of each channel and their circuits (docs/api.md "Providers").
#include "http/provider_routes.hpp"

#include "core/time_format.hpp"
#include "http/message.hpp"

namespace chopar::http {

nlohmann::json ProvidersDocument(const std::vector<ProviderRow>& rows, core::TimePoint now) {
  nlohmann::json providers = nlohmann::json::array();
  for (const ProviderRow& row : rows) {
    nlohmann::json item = {{"channel", core::ChannelName(row.channel)},
                           {"name", row.name},
                           {"kind", row.kind},
                           {"weight", nullptr},
                           {"circuit", nullptr},
                           {"consecutive_failures", nullptr},
                           {"open_until", nullptr}};
    if (row.listed) {
      const channels::CircuitBreaker::Snapshot& circuit = row.listed->circuit;
      item["weight"] = row.listed->weight;
      item["circuit"] = channels::CircuitStateName(circuit.state);
      item["consecutive_failures"] = circuit.consecutive_failures;
      if (circuit.state == channels::CircuitState::kOpen && circuit.open_until > now) {
        item["open_until"] = core::FormatRfc3339(circuit.open_until);
      }
    }
    providers.push_back(std::move(item));
  }
  return {{"providers", std::move(providers)}};
}

void RegisterProviderRoutes(Router& router, ProviderRows rows, const core::Clock& clock) {
  router.Add("GET", "/v1/providers", Auth::kServerKey,
             [rows = std::move(rows), &clock](const Request&) {
               return JsonResponse(
                   200, ProvidersDocument(rows ? rows() : std::vector<ProviderRow>{}, clock.Now()));
             });
}

}  // namespace chopar::http
