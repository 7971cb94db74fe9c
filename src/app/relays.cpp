#include "app/relays.hpp"

namespace chopar::app {
namespace {

// How long Stop() lets a batch being published finish.
constexpr std::chrono::seconds kDrainDeadline{10};

}  // namespace

Relays::Relays(const Config& config, const std::string& own_conninfo, db::Pool& own_pool,
               net::HttpClient& http, const core::Clock& clock, core::MetricsRegistry& metrics)
    : settings_(config.relay) {
  struct Source {
    std::string name;
    std::string conninfo;
  };
  std::vector<Source> sources = {{"chopar", own_conninfo}};
  sources_.push_back({"chopar", own_pool});
  if (!settings_.source_url.empty()) {
    sources.push_back({"application", settings_.source_url});
    // Stats of the application's outbox read through a pool of their own.
    pools_.push_back(std::make_unique<db::Pool>(settings_.source_url, 1));
    sources_.push_back({"application", *pools_.back()});
  }
  for (const Source& source : sources)
    outbox::RegisterOutboxCollector(metrics, source.conninfo, source.name);

  if (settings_.targets.empty()) return;
  targets_ = std::make_unique<outbox::TargetSet>(
      settings_.targets, outbox::TargetDependencies{own_pool, http, clock, metrics});
  for (const Source& source : sources) {
    pools_.push_back(std::make_unique<db::Pool>(source.conninfo, settings_.concurrency));
    relays_.push_back(std::make_unique<outbox::Relay>(
        *pools_.back(), source.name, targets_->routes(), settings_, clock, metrics));
  }
}

Relays::~Relays() { Stop(); }

std::string Relays::Describe() const {
  if (relays_.empty()) return "off (no [[relay.targets]])";
  std::string text =
      settings_.source_url.empty() ? "chopar's outbox" : "chopar's and the application's outboxes";
  text += " →";
  for (const outbox::Route& route : targets_->routes()) text += " " + route.name;
  return text;
}

void Relays::Start() {
  for (auto& relay : relays_) relay->Start();
}

void Relays::Stop() {
  for (auto& relay : relays_) relay->Stop(kDrainDeadline);
}

}  // namespace chopar::app
