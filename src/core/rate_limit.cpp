#include "core/rate_limit.hpp"

#include <algorithm>

namespace chopar::core {

RateDecision DecideRateLimit(int already, int candidates, int limit) {
  candidates = std::max(candidates, 0);
  const int room = std::max(limit - std::max(already, 0), 0);
  const int pass = std::min(room, candidates);
  return {pass, candidates - pass};
}

int CountInWindow(std::span<const TimePoint> history, TimePoint now, std::chrono::seconds window) {
  const TimePoint start = now - window;
  return static_cast<int>(
      std::count_if(history.begin(), history.end(), [&](TimePoint t) { return t > start && t <= now; }));
}

std::string RateLimitReason(int limit) { return "hourly limit " + std::to_string(limit); }

}  // namespace chopar::core
