#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "core/quiet_hours.hpp"
#include "delivery/settings.hpp"

namespace chopar::delivery {

// What the claim knows about one locked delivery when it decides on it.
struct Candidate {
  std::int64_t id = 0;
  std::int64_t user_id = 0;
  core::ChannelKind channel = core::ChannelKind::kEmail;
  int attempts = 0;        // claims so far
  bool reclaimed = false;  // a `sending` row whose lease ran out
  // Reclaimed after its send had started: the provider may have it.
  bool send_started = false;
  // Its channel tells a repeat of a send that may have happened from a new
  // one (channels::Channel::GuardsRepeats), so it may be handed over again.
  bool repeat_guarded = false;
  bool critical = false;
  std::string timezone = "UTC";
  std::optional<core::TimeOfDay> quiet_start;
  std::optional<core::TimeOfDay> quiet_end;
};

enum class ClaimAction {
  kSend,   // → sending, to be handed to the channel now
  kDefer,  // stays queued until `until` (quiet hours)
  kSkip,   // → skipped (over the hourly limit)
  kFail,   // → failed (its lease ran out on the last allowed attempt, or
           // after its send had started: outcome unknown)
};

struct ClaimDecision {
  ClaimAction action = ClaimAction::kSend;
  std::optional<core::TimePoint> until;  // kDefer only
  std::optional<std::string> reason;     // stored in last_error; nullopt keeps the old one
};

// A (user, channel) pair: the unit of the hourly limit.
struct RateKey {
  std::int64_t user_id = 0;
  core::ChannelKind channel = core::ChannelKind::kEmail;
  friend auto operator<=>(const RateKey&, const RateKey&) = default;
};

// Counts already in the sliding hour (sent + sending), per key.
using RateCounts = std::map<RateKey, int>;

// The decision that needs no rate count: a lost lease after the send had
// started fails as "outcome unknown" unless the channel guards repeats (the
// provider may have the message, and a blind repeat could deliver it
// twice); a lost lease on the last allowed attempt fails; a non-critical
// delivery whose user is inside quiet hours now is deferred to the end of
// the window. nullopt: the hourly limit decides. Pure.
std::optional<ClaimDecision> PreDecide(const Candidate& candidate, core::TimePoint now,
                                       const WorkerSettings& settings);

// The distinct keys of the candidates the hourly limit decides on, sorted.
// Pure.
std::vector<RateKey> RateKeysToCheck(std::span<const Candidate> candidates, core::TimePoint now,
                                     const WorkerSettings& settings);

// One decision per candidate, in input order. Within one (user, channel),
// critical deliveries pass the limit first, then older ones (lower id); a key
// missing from `in_window` counts as 0. Pure.
std::vector<ClaimDecision> PlanClaim(std::span<const Candidate> candidates, core::TimePoint now,
                                     const WorkerSettings& settings, const RateCounts& in_window);

}  // namespace chopar::delivery
