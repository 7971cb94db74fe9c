#include "workflow/throttle.hpp"

namespace chopar::workflow {

core::RateDecision DecideThrottle(int already, int candidates, const ThrottleSettings& settings) {
  return core::DecideRateLimit(already, candidates, settings.limit);
}

int CountInThrottleWindow(std::span<const core::TimePoint> history, core::TimePoint now,
                          const ThrottleSettings& settings) {
  return core::CountInWindow(history, now, settings.window);
}

}  // namespace chopar::workflow
