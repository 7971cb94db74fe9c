#include "channels/failover_channel.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/time_format.hpp"

namespace chopar::channels {

struct FailoverChannel::Slot {
  Slot(ProviderSlot e, const core::Clock& clock)
      : entry(std::move(e)), breaker(entry.breaker, clock) {}
  ProviderSlot entry;
  CircuitBreaker breaker;
  core::Counter* sent = nullptr;
  core::Counter* retried = nullptr;
  core::Counter* failed = nullptr;
  core::Counter* unknown = nullptr;
  core::Counter* passed_on = nullptr;  // messages that moved on to the next provider
};

namespace {

// Whether the provider failed to take the message (for its circuit); an
// answer about the message itself (accepted, refused, address gone) shows
// the provider working.
bool IsFailure(const Outcome& outcome) {
  return outcome.kind == OutcomeKind::kUnknown ||
         (outcome.kind == OutcomeKind::kRetry && !outcome.provider_may_hold);
}

// Whether the next provider may take the message: the provider is known
// not to have it.
bool MayFailOver(const Outcome& outcome) {
  return outcome.kind == OutcomeKind::kRetry && !outcome.provider_may_hold;
}

std::uint64_t Mix(std::uint64_t x) {
  // splitmix64's finalizer: consecutive ids spread over the weights.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

FailoverChannel::FailoverChannel(std::string channel_name, std::vector<ProviderSlot> providers,
                                 const core::Clock& clock, core::MetricsRegistry* metrics)
    : channel_name_(std::move(channel_name)), clock_(clock) {
  if (providers.empty()) throw std::invalid_argument("a provider list needs at least one entry");
  std::set<std::string> names;
  for (ProviderSlot& entry : providers) {
    if (!entry.channel) throw std::invalid_argument("provider " + entry.name + " has no channel");
    if (!names.insert(entry.name).second) {
      throw std::invalid_argument("two providers are named " + entry.name +
                                  ": give each entry its own name");
    }
    if (!description_.empty()) description_ += '>';
    description_ += entry.name;
    weights_.push_back(std::max(entry.weight, 0));
    auto slot = std::make_unique<Slot>(std::move(entry), clock_);
    if (metrics != nullptr) {
      const auto counter = [&](const char* result) {
        return &metrics->GetCounter(
            "chopar_provider_sends_total",
            "Messages handed to each provider of a channel with several, by result (sent, retry, "
            "failed, unknown)",
            {{"channel", channel_name_}, {"provider", slot->entry.name}, {"result", result}});
      };
      slot->sent = counter("sent");
      slot->retried = counter("retry");
      slot->failed = counter("failed");
      slot->unknown = counter("unknown");
      slot->passed_on = &metrics->GetCounter(
          "chopar_provider_failovers_total",
          "Messages a provider did not take (a retry outcome or an open circuit) that moved on "
          "to the next provider of the channel",
          {{"channel", channel_name_}, {"provider", slot->entry.name}});
      core::Gauge& state = metrics->GetGauge(
          "chopar_provider_circuit_state",
          "Each provider's circuit in this process: 0 closed, 1 open, 2 half-open",
          {{"channel", channel_name_}, {"provider", slot->entry.name}});
      core::Gauge& failures = metrics->GetGauge(
          "chopar_provider_consecutive_failures",
          "Failed sends in a row of each provider in this process (a success resets it)",
          {{"channel", channel_name_}, {"provider", slot->entry.name}});
      metrics->AddCollector([&state, &failures, &breaker = slot->breaker] {
        const CircuitBreaker::Snapshot now = breaker.Read();
        state.Set(now.state == CircuitState::kClosed ? 0
                  : now.state == CircuitState::kOpen ? 1
                                                     : 2);
        failures.Set(now.consecutive_failures);
      });
    }
    slots_.push_back(std::move(slot));
  }
}

FailoverChannel::~FailoverChannel() = default;

std::size_t FailoverChannel::StartOf(std::int64_t delivery_id, const std::vector<int>& weights) {
  const std::uint64_t total = std::accumulate(
      weights.begin(), weights.end(), std::uint64_t{0},
      [](std::uint64_t sum, int w) { return sum + static_cast<std::uint64_t>(std::max(w, 0)); });
  if (total == 0) return 0;
  std::uint64_t pick = Mix(static_cast<std::uint64_t>(delivery_id)) % total;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const auto w = static_cast<std::uint64_t>(std::max(weights[i], 0));
    if (pick < w) return i;
    pick -= w;
  }
  return 0;
}

std::vector<Outcome> FailoverChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  SendReporting(messages, [&](std::vector<IndexedOutcome> report) {
    for (IndexedOutcome& answered : report) outcomes[answered.index] = std::move(answered.outcome);
  });
  return outcomes;
}

void FailoverChannel::SendReporting(std::span<const Message> messages,
                                    const OutcomeReport& report) {
  const std::size_t n = slots_.size();
  // Each message's providers in the order it tries them: its start, then
  // the rest of the list in order.
  std::vector<std::size_t> start(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    start[i] = StartOf(messages[i].delivery_id, weights_);
  }
  const auto provider_at = [&](std::size_t message, std::size_t round) {
    if (round == 0) return start[message];
    // The list without the start, in order.
    const std::size_t k = round - 1;
    return k < start[message] ? k : k + 1;
  };

  std::vector<std::size_t> pending(messages.size());
  std::iota(pending.begin(), pending.end(), 0);
  std::vector<std::optional<Outcome>> last_retry(messages.size());
  for (std::size_t round = 0; round < n && !pending.empty(); ++round) {
    std::vector<std::size_t> next_round;
    for (std::size_t p = 0; p < n; ++p) {
      std::vector<std::size_t> wanted;
      for (std::size_t i : pending) {
        if (provider_at(i, round) == p) wanted.push_back(i);
      }
      if (wanted.empty()) continue;
      Slot& slot = *slots_[p];
      const std::size_t admitted = slot.breaker.Admit(wanted.size());
      for (std::size_t k = admitted; k < wanted.size(); ++k) {
        next_round.push_back(wanted[k]);
        if (slot.passed_on != nullptr) slot.passed_on->Inc();
      }
      wanted.resize(admitted);
      if (wanted.empty()) continue;

      // The whole batch in one piece keeps the provider's own batching.
      std::vector<Outcome> outcomes;
      bool whole_batch = wanted.size() == messages.size();
      for (std::size_t k = 0; whole_batch && k < wanted.size(); ++k) whole_batch = wanted[k] == k;
      if (whole_batch) {
        outcomes = slot.entry.channel->Send(messages);
      } else {
        std::vector<Message> part;
        part.reserve(wanted.size());
        for (std::size_t i : wanted) part.push_back(messages[i]);
        outcomes = slot.entry.channel->Send(part);
      }
      std::vector<IndexedOutcome> done;
      for (std::size_t k = 0; k < wanted.size(); ++k) {
        Outcome outcome =
            k < outcomes.size()
                ? std::move(outcomes[k])
                : Outcome::Retry(slot.entry.name + " gave no outcome for this message");
        outcome.provider = slot.entry.name;
        slot.breaker.Record(!IsFailure(outcome));
        if (slot.sent != nullptr) {
          (outcome.kind == OutcomeKind::kSent      ? slot.sent
           : outcome.kind == OutcomeKind::kRetry   ? slot.retried
           : outcome.kind == OutcomeKind::kUnknown ? slot.unknown
                                                   : slot.failed)
              ->Inc();
        }
        if (MayFailOver(outcome) && round + 1 < n) {
          if (slot.passed_on != nullptr) slot.passed_on->Inc();
          last_retry[wanted[k]] = std::move(outcome);
          next_round.push_back(wanted[k]);
        } else {
          done.push_back({wanted[k], std::move(outcome)});
        }
      }
      if (!done.empty()) report(std::move(done));
    }
    pending = std::move(next_round);
  }
  if (pending.empty()) return;

  // Every provider passed these on: the last one's retry stands, or, for a
  // message no circuit admitted, a retry once the first circuit half-opens.
  std::optional<core::TimePoint> reopens;
  for (const auto& slot : slots_) {
    const CircuitBreaker::Snapshot circuit = slot->breaker.Read();
    if (circuit.state == CircuitState::kOpen && (!reopens || circuit.open_until < *reopens)) {
      reopens = circuit.open_until;
    }
  }
  const core::TimePoint now = clock_.Now();
  std::vector<IndexedOutcome> rest;
  for (std::size_t i : pending) {
    if (last_retry[i]) {
      rest.push_back({i, std::move(*last_retry[i])});
      continue;
    }
    std::chrono::seconds wait{1};
    if (reopens && *reopens > now) {
      wait = std::max(wait, std::chrono::ceil<std::chrono::seconds>(*reopens - now));
    }
    Outcome outcome = Outcome::Retry(
        channel_name_ + ": every provider's circuit is open (" + description_ + ")", wait);
    rest.push_back({i, std::move(outcome)});
  }
  report(std::move(rest));
}

std::vector<ProviderHealth> FailoverChannel::Health() const {
  std::vector<ProviderHealth> health;
  for (const auto& slot : slots_) {
    health.push_back(
        {slot->entry.name, slot->entry.kind, slot->entry.weight, slot->breaker.Read()});
  }
  return health;
}

}  // namespace chopar::channels
