#include "channels/circuit_breaker.hpp"

#include <algorithm>

namespace chopar::channels {

std::string_view CircuitStateName(CircuitState state) {
  switch (state) {
    case CircuitState::kClosed:
      return "closed";
    case CircuitState::kOpen:
      return "open";
    case CircuitState::kHalfOpen:
      return "half_open";
  }
  return "closed";
}

CircuitBreaker::CircuitBreaker(BreakerSettings settings, const core::Clock& clock)
    : settings_(settings), clock_(clock) {
  settings_.failure_threshold = std::max(settings_.failure_threshold, 1);
}

std::size_t CircuitBreaker::Admit(std::size_t wanted) {
  if (wanted == 0) return 0;
  const std::lock_guard lock(mutex_);
  switch (state_.state) {
    case CircuitState::kClosed:
      return wanted;
    case CircuitState::kOpen:
      if (clock_.Now() < state_.open_until) return 0;
      state_.state = CircuitState::kHalfOpen;
      probe_out_ = true;
      return 1;
    case CircuitState::kHalfOpen:
      // The probe's outcome decides; until then nothing else goes.
      if (probe_out_) return 0;
      probe_out_ = true;
      return 1;
  }
  return 0;
}

void CircuitBreaker::Record(bool success) {
  const std::lock_guard lock(mutex_);
  if (success) {
    state_ = Snapshot{};
    probe_out_ = false;
    return;
  }
  ++state_.consecutive_failures;
  // A failed probe reopens at once; a closed circuit opens at the threshold.
  // (Failures of sends admitted before the circuit opened only lengthen the
  // count: the rest is counted from the failure that opened it.)
  if (state_.state == CircuitState::kHalfOpen ||
      (state_.state == CircuitState::kClosed &&
       state_.consecutive_failures >= settings_.failure_threshold)) {
    state_.state = CircuitState::kOpen;
    state_.open_until = clock_.Now() + settings_.open_for;
    probe_out_ = false;
  }
}

CircuitBreaker::Snapshot CircuitBreaker::Read() const {
  const std::lock_guard lock(mutex_);
  Snapshot shown = state_;
  // Due to half-open: shown as such, though the probe has not gone yet.
  if (shown.state == CircuitState::kOpen && clock_.Now() >= shown.open_until) {
    shown.state = CircuitState::kHalfOpen;
  }
  return shown;
}

}  // namespace chopar::channels
