#pragma once

#include <array>
#include <chrono>

#include "core/backoff.hpp"
#include "core/channel_kind.hpp"

namespace chopar::delivery {

// How a delivery Worker behaves; a value, set once at construction. Field
// names and defaults mirror the [delivery] and [limits.hourly] sections of
// the configuration (app::Config).
struct WorkerSettings {
  int batch = 500;               // deliveries per claim
  int lease_seconds = 60;        // how long a claim is held before others may take it back
  int max_attempts = 8;          // claims per delivery before it becomes failed
  double backoff_initial_seconds = 1.0;
  double backoff_max_seconds = 3600;
  int concurrency = 2;           // claim/send/record loops started by Start()
  double poll_seconds = 1.0;     // idle wake-up when no NOTIFY arrives
  double drain_seconds = 10.0;   // Stop(): how long in-flight sends may finish
  // Per user and channel in any sliding hour, indexed by core::ChannelIndex.
  std::array<int, 4> hourly_limits = {20, 30, 30, 3};

  [[nodiscard]] int HourlyLimit(core::ChannelKind kind) const {
    return hourly_limits[core::ChannelIndex(kind)];
  }
  [[nodiscard]] std::chrono::seconds Lease() const { return std::chrono::seconds(lease_seconds); }
  [[nodiscard]] core::BackoffPolicy Backoff() const {
    return {Millis(backoff_initial_seconds), Millis(backoff_max_seconds)};
  }
  [[nodiscard]] std::chrono::milliseconds PollInterval() const { return Millis(poll_seconds); }
  [[nodiscard]] std::chrono::milliseconds DrainDeadline() const { return Millis(drain_seconds); }

 private:
  static std::chrono::milliseconds Millis(double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }
};

}  // namespace chopar::delivery
