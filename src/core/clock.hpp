#pragma once

#include <atomic>
#include <chrono>

namespace chopar::core {

using TimePoint = std::chrono::system_clock::time_point;
using Seconds = std::chrono::seconds;

// The one way chopar reads the time. Everything that decides on time (leases,
// backoff, quiet hours, rate-limit windows, schedules) takes a Clock& so tests
// can use SimulatedClock instead of sleeping. Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  [[nodiscard]] virtual TimePoint Now() const = 0;
  // Whether Now() is the real time. Decisions that several hosts must agree
  // on (who owns a delivery, whether it is due, the hourly window) are made
  // on the database's clock, not on the real time of whichever host makes
  // them; a clock that is not real (SimulatedClock) hands its own time to
  // those decisions instead, so tests move leases and windows by moving it.
  [[nodiscard]] virtual bool IsReal() const { return true; }
};

// Wall-clock time from the operating system.
class SystemClock final : public Clock {
 public:
  [[nodiscard]] TimePoint Now() const override { return std::chrono::system_clock::now(); }
};

// A clock that stands still until a test moves it. Thread-safe.
class SimulatedClock final : public Clock {
 public:
  explicit SimulatedClock(TimePoint start) : now_(start.time_since_epoch().count()) {}
  [[nodiscard]] TimePoint Now() const override {
    return TimePoint(TimePoint::duration(now_.load()));
  }
  [[nodiscard]] bool IsReal() const override { return false; }
  void Set(TimePoint t) { now_.store(t.time_since_epoch().count()); }
  template <typename Rep, typename Period>
  void Advance(std::chrono::duration<Rep, Period> d) {
    now_.fetch_add(std::chrono::duration_cast<TimePoint::duration>(d).count());
  }

 private:
  std::atomic<TimePoint::duration::rep> now_;
};

}  // namespace chopar::core
