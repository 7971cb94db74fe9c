#pragma once

// Helpers shared by the BackgroundLoop tests (header only; not part of the
// library).

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "db/background_loop.hpp"

namespace chopar::db::testing {

// A sleep that only a wake-up (or Stop) can end within a test.
inline constexpr std::chrono::minutes kLongSleep{10};
// How long a test waits for something that must happen.
inline constexpr std::chrono::seconds kPatience{20};

// Records the steps of a loop and lets a test wait for them. Thread-safe.
class StepLog {
 public:
  // Records a step; returns its number, from 1.
  int Record(const StepContext& context) {
    std::lock_guard lock(mutex_);
    contexts_.push_back(context);
    cv_.notify_all();
    return static_cast<int>(contexts_.size());
  }
  // A step function that records the step and returns `next`.
  BackgroundLoop::Step Recording(Next next) {
    return [this, next](const StepContext& context) {
      Record(context);
      return next;
    };
  }
  // Waits up to kPatience until `count` steps have been recorded.
  bool WaitFor(int count) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, kPatience,
                        [&] { return static_cast<int>(contexts_.size()) >= count; });
  }
  int Count() {
    std::lock_guard lock(mutex_);
    return static_cast<int>(contexts_.size());
  }
  std::vector<StepContext> Contexts() {
    std::lock_guard lock(mutex_);
    return contexts_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<StepContext> contexts_;
};

// The value of a metric of the loop named "test" (`source`: the wake-up
// source label of chopar_loop_wakeups_total, else empty).
inline double LoopCounter(core::MetricsRegistry& metrics, const std::string& name,
                          const std::string& source = "") {
  core::Labels labels{{"loop", "test"}};
  if (!source.empty()) labels.emplace_back("source", source);
  return metrics.GetCounter(name, "", labels).Value();
}

}  // namespace chopar::db::testing
