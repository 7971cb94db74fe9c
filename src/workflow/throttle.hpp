#pragma once

#include <chrono>
#include <span>
#include <string_view>

#include "core/clock.hpp"
#include "core/rate_limit.hpp"
#include "workflow/settings.hpp"

namespace chopar::workflow {

// The last_error of a delivery skipped by its type's throttle.
inline constexpr std::string_view kThrottledReason = "throttled";

// How `candidates` deliveries of one (user, type) asking to go now split,
// when the window already holds `already` (sent + sending): the first
// `pass` in the caller's order go, the other `skip` end skipped with
// kThrottledReason. The hourly limit's rule, with the type's limit. Pure.
core::RateDecision DecideThrottle(int already, int candidates, const ThrottleSettings& settings);

// How many of `history` (instants deliveries of the type were claimed for
// the user) count against the throttle at `now`: those strictly after
// now − window and not after now. Pure.
int CountInThrottleWindow(std::span<const core::TimePoint> history, core::TimePoint now,
                          const ThrottleSettings& settings);

}  // namespace chopar::workflow
