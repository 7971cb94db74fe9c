#include "delivery/claim_plan.hpp"

#include <algorithm>

#include "core/rate_limit.hpp"
#include "core/time_format.hpp"
#include "workflow/escalation.hpp"

namespace chopar::delivery {

std::optional<ClaimDecision> PreDecide(const Candidate& candidate, core::TimePoint now,
                                       const WorkerSettings& settings) {
  if (candidate.reclaimed && candidate.send_started && !candidate.repeat_guarded) {
    return ClaimDecision{ClaimAction::kFail, std::nullopt,
                         "outcome unknown: attempt " + std::to_string(candidate.attempts) +
                             " was handed to the provider and its lease ran out before the "
                             "answer was recorded; not sent again, to avoid a duplicate"};
  }
  if (candidate.reclaimed && candidate.attempts >= settings.max_attempts) {
    return ClaimDecision{ClaimAction::kFail, std::nullopt,
                         "lease expired on attempt " + std::to_string(candidate.attempts) + " of " +
                             std::to_string(settings.max_attempts) + "; giving up"};
  }
  if (candidate.unless_read && candidate.read_at && *candidate.read_at <= now) {
    return ClaimDecision{ClaimAction::kCancel, std::nullopt, std::string(workflow::kReadReason)};
  }
  if (!candidate.critical && candidate.quiet_start && candidate.quiet_end) {
    if (auto until =
            core::QuietUntil(now, candidate.timezone, *candidate.quiet_start, *candidate.quiet_end);
        until && *until > now) {
      return ClaimDecision{ClaimAction::kDefer, until,
                           "quiet hours until " + core::FormatRfc3339(*until)};
    }
  }
  return std::nullopt;
}

std::vector<RateKey> RateKeysToCheck(std::span<const Candidate> candidates, core::TimePoint now,
                                     const WorkerSettings& settings) {
  std::vector<RateKey> keys;
  for (const Candidate& c : candidates) {
    if (!PreDecide(c, now, settings)) keys.push_back({c.user_id, c.channel});
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<ThrottleKey> ThrottleKeysToCheck(std::span<const Candidate> candidates,
                                             core::TimePoint now, const WorkerSettings& settings,
                                             const Throttles& throttles) {
  std::vector<ThrottleKey> keys;
  if (throttles.by_type.empty()) return keys;
  for (const Candidate& c : candidates) {
    if (throttles.by_type.contains(c.type) && !PreDecide(c, now, settings))
      keys.push_back({c.user_id, c.type});
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

namespace {

// Critical first, then older (lower id): who passes a limit first.
void SortByPriority(std::span<const Candidate> candidates, std::vector<std::size_t>& members) {
  std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
    if (candidates[a].critical != candidates[b].critical) return candidates[a].critical;
    return candidates[a].id < candidates[b].id;
  });
}

// Skips, in `decisions`, the members of each (user, type) group over its
// type's throttle; returns whether candidate i was throttled.
std::vector<bool> ApplyThrottles(std::span<const Candidate> candidates,
                                 const std::vector<bool>& undecided, const Throttles& throttles,
                                 std::vector<ClaimDecision>& decisions) {
  std::vector<bool> throttled(candidates.size(), false);
  if (throttles.by_type.empty()) return throttled;
  std::map<ThrottleKey, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (undecided[i] && throttles.by_type.contains(candidates[i].type))
      groups[{candidates[i].user_id, candidates[i].type}].push_back(i);
  }
  for (auto& [key, members] : groups) {
    SortByPriority(candidates, members);
    const auto found = throttles.in_window.find(key);
    const core::RateDecision split = workflow::DecideThrottle(
        found == throttles.in_window.end() ? 0 : found->second, static_cast<int>(members.size()),
        throttles.by_type.find(key.type)->second);
    for (std::size_t rank = static_cast<std::size_t>(split.pass); rank < members.size(); ++rank) {
      decisions[members[rank]] = {ClaimAction::kSkip, std::nullopt,
                                  std::string(workflow::kThrottledReason)};
      throttled[members[rank]] = true;
    }
  }
  return throttled;
}

}  // namespace

std::vector<ClaimDecision> PlanClaim(std::span<const Candidate> candidates, core::TimePoint now,
                                     const WorkerSettings& settings, const RateCounts& in_window,
                                     const Throttles& throttles) {
  std::vector<ClaimDecision> decisions(candidates.size());
  std::vector<bool> undecided(candidates.size(), false);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (auto decided = PreDecide(candidates[i], now, settings)) {
      decisions[i] = std::move(*decided);
    } else {
      undecided[i] = true;
    }
  }
  const std::vector<bool> throttled = ApplyThrottles(candidates, undecided, throttles, decisions);
  std::map<RateKey, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (undecided[i] && !throttled[i])
      groups[{candidates[i].user_id, candidates[i].channel}].push_back(i);
  }
  for (auto& [key, members] : groups) {
    SortByPriority(candidates, members);
    const int limit = settings.hourly_limits[key.channel];
    const auto found = in_window.find(key);
    const core::RateDecision split = core::DecideRateLimit(
        found == in_window.end() ? 0 : found->second, static_cast<int>(members.size()), limit);
    for (std::size_t rank = 0; rank < members.size(); ++rank) {
      const Candidate& c = candidates[members[rank]];
      ClaimDecision& decision = decisions[members[rank]];
      if (static_cast<int>(rank) < split.pass) {
        decision.action = ClaimAction::kSend;
        if (c.reclaimed) {
          decision.reason =
              "lease expired on attempt " + std::to_string(c.attempts) + "; taken back";
        }
      } else {
        decision.action = ClaimAction::kSkip;
        decision.reason = core::RateLimitReason(limit);
      }
    }
  }
  return decisions;
}

}  // namespace chopar::delivery
