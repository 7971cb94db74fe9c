#pragma once

#include <chrono>

namespace chopar::schedule {

// How a Scheduler behaves; a value, set once at construction. The defaults
// are the defaults of the [scheduler] section of the configuration
// (docs/configuration.md), which app::Config holds as this very type.
struct SchedulerSettings {
  int batch = 500;  // [scheduler] batch: schedules claimed per firing transaction
  // [scheduler] concurrency: firing loops per process. Each batch is a chain
  // of round trips with the CPU idle in between; two loops claim disjoint
  // batches (SKIP LOCKED) and keep both ends busy when thousands of
  // schedules fall due at once.
  int concurrency = 2;
  // [scheduler] max_sleep_seconds: idle wake-up when no NOTIFY arrives.
  std::chrono::milliseconds max_sleep{std::chrono::seconds(60)};
  // [scheduler] prepare_seconds: how long before a due instant its firings
  // are written, in transactions held open and committed at the instant, so
  // that thousands of occurrences due at once appear together at it instead
  // of over the second it takes to write them. Zero: written at the instant.
  std::chrono::milliseconds prepare{std::chrono::seconds(3)};
  // Due schedules all held by other schedulers: look again after this. Not
  // configurable.
  std::chrono::milliseconds busy_retry{500};
};

}  // namespace chopar::schedule
