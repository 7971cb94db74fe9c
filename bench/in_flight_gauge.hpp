#pragma once

// How many requests a provider fake of the benchmarks holds at once, and the
// most it held: its handler keeps a Hold for as long as it answers one.

#include <atomic>

namespace chopar::bench {

class InFlightGauge {
 public:
  class Hold {
   public:
    explicit Hold(InFlightGauge& gauge) : gauge_(gauge) {
      const int now = ++gauge_.in_flight_;
      int seen = gauge_.max_.load();
      while (now > seen && !gauge_.max_.compare_exchange_weak(seen, now)) {
      }
    }
    ~Hold() { --gauge_.in_flight_; }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    InFlightGauge& gauge_;
  };

  [[nodiscard]] int max() const { return max_.load(); }

 private:
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_{0};
};

}  // namespace chopar::bench
