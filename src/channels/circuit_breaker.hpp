#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string_view>

#include "core/clock.hpp"

namespace chopar::channels {

// When a provider is given a rest: [[channels.<channel>.providers]]'s
// failure_threshold and open_seconds.
struct BreakerSettings {
  int failure_threshold = 5;          // consecutive failed sends that open the circuit
  std::chrono::seconds open_for{30};  // how long it stays open before one probe
};

enum class CircuitState {
  kClosed,    // sends go through
  kOpen,      // no sends until open_for has passed
  kHalfOpen,  // one probe send is out; its outcome closes or reopens the circuit
};

// "closed", "open", "half_open": for /metrics, the console and logs.
std::string_view CircuitStateName(CircuitState state);

// The circuit of one provider. A failure is a send the provider did not
// take (a refused connection, a 5xx or 429, a timeout); any answer that
// shows the provider working (accepted, or a refusal of that one message)
// is a success. `failure_threshold` failures in a row open the circuit;
// after `open_for` the next Admit lets one message through as a probe
// (half-open) and holds every other back until the probe's outcome is
// recorded: a success closes the circuit, a failure opens it for another
// `open_for`. Thread-safe.
class CircuitBreaker {
 public:
  CircuitBreaker(BreakerSettings settings, const core::Clock& clock);

  // How many of `wanted` messages may go to the provider now: all while
  // closed, one probe when the circuit is due to half-open, none while it
  // is open or a probe is out. Messages admitted must each be recorded.
  std::size_t Admit(std::size_t wanted);
  // The outcomes of admitted messages, in the order they were sent.
  void Record(bool success);

  struct Snapshot {
    CircuitState state = CircuitState::kClosed;
    int consecutive_failures = 0;
    core::TimePoint open_until{};  // while open: when a probe may go
  };
  [[nodiscard]] Snapshot Read() const;

 private:
  BreakerSettings settings_;  // failure_threshold at least 1
  const core::Clock& clock_;
  mutable std::mutex mutex_;
  Snapshot state_;
  bool probe_out_ = false;
};

}  // namespace chopar::channels
