#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "channels/failover_channel.hpp"
#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "http/router.hpp"

namespace chopar::http {

// One provider of one channel as the answering process has it.
struct ProviderRow {
  core::ChannelKind channel = core::ChannelKind::kEmail;
  std::string name;  // the entry's name, or the single provider's ("smtp", "sink")
  std::string kind;
  // Set for an entry of a [[channels.<channel>.providers]] list: its
  // weight and circuit.
  std::optional<channels::ProviderHealth> listed;
};
using ProviderRows = std::function<std::vector<ProviderRow>()>;

// docs/api.md "Providers": GET /v1/providers (API key) → 200
// {"providers": [{"channel", "name", "kind", "weight", "circuit",
// "consecutive_failures", "open_until"}]}, every channel's providers in
// the order the API lists channels, with the circuits of the answering
// process. `rows` must outlive the router.
void RegisterProviderRoutes(Router& router, ProviderRows rows, const core::Clock& clock);

// The body of GET /v1/providers at `now`. Pure.
nlohmann::json ProvidersDocument(const std::vector<ProviderRow>& rows, core::TimePoint now);

}  // namespace chopar::http
