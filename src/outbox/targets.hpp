#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"
#include "outbox/settings.hpp"
#include "outbox/target.hpp"
#include "outbox/type_patterns.hpp"

namespace chopar::outbox {

// A target as the relay sees it: its name (metrics, logs, an event's
// delivered_to), which event types it receives, and where to publish.
// `target` is not owned; it must outlive every Relay given the route.
struct Route {
  std::string name;
  TypePatterns types;
  Target* target = nullptr;
};

// Checks every [[relay.targets]] entry and fills in default names (the
// kind, then "<kind>-2", "<kind>-3", … for later targets of the same kind).
// Throws std::invalid_argument naming the entry ("[[relay.targets]] #2
// (webhook): …") for an unknown kind, a missing url / secret / title, a
// secret that is not "whsec_<base64>", a subject whose "{type}" is not a
// whole token, a bad type pattern or channel, a name that is not
// [a-z0-9_-]+ or is taken twice, a timeout of zero, a webhook's
// max_in_flight outside 1..kMaxTargetInFlight.
void ValidateTargets(std::vector<TargetSettings>& targets);

// Whether key `key` of a [[relay.targets]] entry means anything for `kind`
// (the configuration refuses keys of other kinds).
bool TargetKeyApplies(std::string_view kind, std::string_view key);

// What targets are built with. Everything must outlive the TargetSet.
struct TargetDependencies {
  db::Pool& pool;  // chopar's own database (the notify target)
  net::HttpClient& http;
  const core::Clock& clock;
  core::MetricsRegistry& metrics;  // notifications the notify target creates
};

// The targets of the configuration, built once and owned here; relays get
// Routes to them. One object per configured target, shared by every relay
// and loop given its route: app::Relays builds one TargetSet per process,
// so a webhook's max_in_flight bounds the whole process. Building connects nowhere (NATS connects on first
// publish). Thread-safe once built (the targets are).
class TargetSet {
 public:
  // `settings` must have passed ValidateTargets. Throws
  // std::invalid_argument for a target that cannot be built.
  TargetSet(const std::vector<TargetSettings>& settings, const TargetDependencies& deps);

  [[nodiscard]] const std::vector<Route>& routes() const { return routes_; }
  [[nodiscard]] bool empty() const { return routes_.empty(); }

 private:
  std::vector<std::unique_ptr<Target>> owned_;
  std::vector<Route> routes_;
};

}  // namespace chopar::outbox
