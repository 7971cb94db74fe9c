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
#include "workflow/throttle.hpp"

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
  std::string type;  // the notification's type (the unit of its throttle)
  // Escalate-if-unread: canceled when the notification was read by now.
  bool unless_read = false;
  std::optional<core::TimePoint> read_at;
  std::string timezone = "UTC";
  std::optional<core::TimeOfDay> quiet_start;
  std::optional<core::TimeOfDay> quiet_end;
};

enum class ClaimAction {
  kSend,    // → sending, to be handed to the channel now
  kDefer,   // stays queued until `until` (quiet hours)
  kSkip,    // → skipped (over the hourly limit or the type's throttle)
  kFail,    // → failed (its lease ran out on the last allowed attempt, or
            // after its send had started: outcome unknown)
  kCancel,  // → canceled (escalate-if-unread: the notification was read)
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

// A (user, type) pair: the unit of a type's throttle.
struct ThrottleKey {
  std::int64_t user_id = 0;
  std::string type;
  friend auto operator<=>(const ThrottleKey&, const ThrottleKey&) = default;
};

// The throttles of the types being claimed (types without one are absent),
// and what each (user, type) already holds in its window (sent + sending).
struct Throttles {
  std::map<std::string, workflow::ThrottleSettings, std::less<>> by_type;
  std::map<ThrottleKey, int> in_window;
};

// The decision that needs no rate count: a lost lease after the send had
// started fails as "outcome unknown" unless the channel guards repeats (the
// provider may have the message, and a blind repeat could deliver it
// twice); a lost lease on the last allowed attempt fails; a non-critical
// an escalated delivery (unless_read) whose notification was read by now is
// canceled with workflow::kReadReason; a non-critical delivery whose user
// is inside quiet hours now is deferred to the end of the window. nullopt:
// the throttle and the hourly limit decide. Pure.
std::optional<ClaimDecision> PreDecide(const Candidate& candidate, core::TimePoint now,
                                       const WorkerSettings& settings);

// The distinct keys of the candidates the hourly limit decides on, sorted.
// Pure.
std::vector<RateKey> RateKeysToCheck(std::span<const Candidate> candidates, core::TimePoint now,
                                     const WorkerSettings& settings);

// The distinct (user, type) keys of the candidates a throttle of
// `throttles` decides on, sorted. Pure.
std::vector<ThrottleKey> ThrottleKeysToCheck(std::span<const Candidate> candidates,
                                             core::TimePoint now, const WorkerSettings& settings,
                                             const Throttles& throttles);

// One decision per candidate, in input order. The type's throttle decides
// first, per (user, type) across channels (over it: skipped, `throttled`),
// then the hourly limit on what passed. Within a group, critical deliveries
// pass first, then older ones (lower id); a key missing from a count counts
// as 0. Pure.
std::vector<ClaimDecision> PlanClaim(std::span<const Candidate> candidates, core::TimePoint now,
                                     const WorkerSettings& settings, const RateCounts& in_window,
                                     const Throttles& throttles = {});

}  // namespace chopar::delivery
