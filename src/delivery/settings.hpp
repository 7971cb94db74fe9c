#pragma once

#include <chrono>

#include "core/backoff.hpp"
#include "core/channel_kind.hpp"

namespace chopar::delivery {

// How a delivery Worker behaves; a value, set once at construction. The
// defaults are the defaults of the [delivery] and [limits.hourly] sections of
// the configuration (docs/configuration.md), which app::Config holds as this
// very type; the configuration's numbers of seconds become these durations
// once, when it is read.
struct WorkerSettings {
  int batch = 500;  // [delivery] batch: deliveries per claim
  // [delivery] lease_seconds: how long a claim is held before others may
  // take it back.
  std::chrono::seconds lease{60};
  int max_attempts = 8;  // [delivery] max_attempts: claims per delivery before it becomes failed
  // [delivery] backoff_initial_seconds (1.0) and backoff_max_seconds (3600).
  core::BackoffPolicy backoff{std::chrono::seconds(1), std::chrono::hours(1)};
  int concurrency = 2;  // [delivery] concurrency: claim/send/record loops started by Start()
  // [delivery] poll_seconds: idle wake-up when no NOTIFY arrives.
  std::chrono::milliseconds poll_interval{std::chrono::seconds(1)};
  // [delivery] linger_seconds: after a NOTIFY woke a loop, how long it waits
  // before it claims, so the notifications of the next few moments go in
  // the same claim (db::BackgroundLoopSettings::linger_after_wake).
  std::chrono::milliseconds linger{5};
  // [delivery] drain_seconds: Stop(): how long in-flight sends may finish.
  std::chrono::milliseconds drain_deadline{std::chrono::seconds(10)};
  // [limits.hourly]: per user and channel in any sliding hour.
  core::PerChannel<int> hourly_limits = core::RegisteredHourlyLimits();
};

}  // namespace chopar::delivery
