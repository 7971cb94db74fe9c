#pragma once

#include <chrono>
#include <span>
#include <string>

#include "core/clock.hpp"

namespace chopar::core {

// The sliding window of the hourly limit.
inline constexpr std::chrono::hours kRateWindow{1};

// How a batch of candidates for one (user, channel) splits under the limit:
// the first `pass` candidates (in the caller's order) may be sent, the
// remaining `skip` are over the limit.
struct RateDecision {
  int pass = 0;
  int skip = 0;
  friend bool operator==(const RateDecision&, const RateDecision&) = default;
};

// `already` is what the window already holds (sent + sending), `candidates`
// the deliveries asking to go now, `limit` the hourly limit (0 or less sends
// nothing). Pure.
RateDecision DecideRateLimit(int already, int candidates, int limit);

// How many of `history` (instants deliveries were claimed) fall inside the
// sliding window ending at `now`: strictly after now − window, not after now.
// Pure.
int CountInWindow(std::span<const TimePoint> history, TimePoint now,
                  std::chrono::seconds window = kRateWindow);

// The reason stored on a delivery skipped by the limit: "hourly limit 3".
std::string RateLimitReason(int limit);

}  // namespace chopar::core
