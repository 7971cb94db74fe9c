#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "channels/channel.hpp"
#include "channels/circuit_breaker.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"

namespace chopar::channels {

// One entry of a channel's [[channels.<channel>.providers]] list.
struct ProviderSlot {
  std::string name;  // the entry's name (default: its kind), unique in the list
  std::string kind;  // "smtp", "ses", "eskiz", "twilio", …
  std::unique_ptr<Channel> channel;
  // Share of the first attempts when load is shared: 0 takes none (a
  // standby); when every weight is 0 the first entry takes them all.
  int weight = 0;
  BreakerSettings breaker;
};

// One provider's health as this process sees it.
struct ProviderHealth {
  std::string name;
  std::string kind;
  int weight = 0;
  CircuitBreaker::Snapshot circuit;
};

// A channel with several providers (docs/configuration.md, "Several
// providers per channel"). Each message goes to its first provider whose
// circuit admits it — the first entry, or one picked by weight from the
// message's delivery id, so its retries start at the same one — and moves
// on down the list only when that provider's outcome is a retry, which
// says nothing was accepted (channels/outcome_unknown.hpp: a refused
// connection, a 5xx or 429 answer), or when its circuit is open. An
// outcome the provider may hold (Outcome::provider_may_hold) stays with it,
// and an unknown outcome (an answer that never came after the request was
// written) is final here as everywhere: a message is never handed to a
// second provider that the first may have delivered. Every outcome names
// the provider that gave it (Outcome::provider).
//
// It never guards repeats (GuardsRepeats is false): an attempt cut off by a
// lost lease may have reached any of the providers, so it ends "outcome
// unknown" rather than being sent again. Thread-safe.
class FailoverChannel final : public Channel {
 public:
  // `channel_name` ("email") labels the metrics; `metrics` may be null, and
  // otherwise runs collectors that read this channel: it must not render
  // after the channel is gone.
  // Throws std::invalid_argument for an empty list, a provider without a
  // channel, or two entries of the same name.
  FailoverChannel(std::string channel_name, std::vector<ProviderSlot> providers,
                  const core::Clock& clock, core::MetricsRegistry* metrics);
  ~FailoverChannel() override;
  FailoverChannel(const FailoverChannel&) = delete;
  FailoverChannel& operator=(const FailoverChannel&) = delete;

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  void SendReporting(std::span<const Message> messages, const OutcomeReport& report) override;
  // The entries' names in order, joined by '>' ("ses>smtp").
  [[nodiscard]] std::string_view ProviderName() const override { return description_; }

  [[nodiscard]] std::vector<ProviderHealth> Health() const;

  // Where `delivery_id`'s first attempt starts: a pick by weight (stable per
  // id), or 0 when no weight is set. Pure.
  static std::size_t StartOf(std::int64_t delivery_id, const std::vector<int>& weights);

 private:
  struct Slot;
  std::string channel_name_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<int> weights_;
  std::string description_;
  const core::Clock& clock_;
};

}  // namespace chopar::channels
