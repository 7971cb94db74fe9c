#pragma once

#include <memory>
#include <vector>

#include "app/config.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"
#include "outbox/outbox_stats.hpp"
#include "outbox/relay.hpp"
#include "outbox/targets.hpp"

namespace chopar::app {

// The outboxes this process knows and, when [[relay.targets]] are
// configured, their relays (docs/outbox.md): chopar's own outbox always
// (its own events), and the application's at [relay] source_url when set,
// both publishing to one set of targets. Each relayed database gets a pool
// of its own ([relay] concurrency connections, held while a batch is
// published), so relays never starve the API of connections.
//
// Everything given must outlive the object. Start/Stop from one thread.
class Relays {
 public:
  // `own_conninfo` is chopar's database; `own_pool` serves the notify
  // target and the stats of chopar's outbox. Registers the pending gauges
  // of every outbox. Throws std::invalid_argument for a target that cannot
  // be built.
  Relays(const Config& config, const std::string& own_conninfo, db::Pool& own_pool,
         net::HttpClient& http, const core::Clock& clock, core::MetricsRegistry& metrics);
  ~Relays();
  Relays(const Relays&) = delete;
  Relays& operator=(const Relays&) = delete;

  // Whether targets are configured, so Start() starts relays.
  [[nodiscard]] bool configured() const { return !relays_.empty(); }
  // "chopar" and, with a source_url, "application": for GET /v1/outbox/stats.
  [[nodiscard]] const std::vector<outbox::OutboxSource>& sources() const { return sources_; }
  // What runs, for the start-up banner.
  [[nodiscard]] std::string Describe() const;

  void Start();
  // Lets batches being published finish (up to the deadline) and stops.
  void Stop();

 private:
  const outbox::RelaySettings settings_;
  std::vector<std::unique_ptr<db::Pool>> pools_;  // the relays' own
  std::vector<outbox::OutboxSource> sources_;
  std::unique_ptr<outbox::TargetSet> targets_;
  std::vector<std::unique_ptr<outbox::Relay>> relays_;
};

}  // namespace chopar::app
