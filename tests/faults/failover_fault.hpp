#pragma once

// The chaos lab's failover fault (make ha-lab): the database is a
// pg_auto_failover cluster driven by tests/ha/cluster.sh, and every few
// minutes its primary is replaced, by a planned switchover and by a kill -9
// of its postmaster in turn, while the lab's workload runs.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace chopar::faults {

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

// One failover as the driver ran it.
struct FailoverRun {
  int number = 0;                       // 1, 2, …
  std::string kind;                     // "switchover" or "kill -9 of the primary"
  SteadyTime began, promoted, healthy;  // the command started; it returned; wait-healthy returned
  WallTime began_wall, promoted_wall;   // the same instants on the wall clock (event timelines)
  bool ok = true;                       // both commands exited 0
  std::string error;                    // what failed, when not ok
};

// Drives `script` (tests/ha/cluster.sh) on the cluster under `dir`: from
// Start() until Stop(), a failover every `every` (the first after half of
// it), `switchover` and `kill-primary` in turn, each followed by
// `wait-healthy`; the next never starts before the cluster is healthy
// again. `log` is called from the driver's thread before and after each
// failover. A command that fails is recorded (FailoverRun::ok) and the
// driver goes on (after a failed wait-healthy, once the cluster is healthy
// after all, or four more tries of it). Start and Stop are for one thread; runs() is thread-safe.
class FailoverDriver {
 public:
  FailoverDriver(std::string script, std::string dir, std::chrono::seconds every,
                 std::function<void(const std::string&)> log);
  ~FailoverDriver();
  FailoverDriver(const FailoverDriver&) = delete;
  FailoverDriver& operator=(const FailoverDriver&) = delete;

  void Start();
  // Starts no other failover; the one in progress goes on to the end.
  void RequestStop();
  // Whether the driver's thread is still running (a failover in progress).
  [[nodiscard]] bool Running() const;
  // RequestStop(), then waits for the failover in progress and for the
  // cluster to be healthy again.
  void Stop();
  [[nodiscard]] std::vector<FailoverRun> runs() const;

 private:
  void Loop();
  void RunOne(int number);
  int Command(const std::string& action);

  const std::string script_, dir_;
  const std::chrono::seconds every_;
  const std::function<void(const std::string&)> log_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool finished_ = false;
  std::vector<FailoverRun> runs_;
  std::thread thread_;
};

// How long chopar's writes were held up by one failover, from when its
// successful writes completed (`write_ends`, the end of each successful
// write request): the outage is the longest gap between two consecutive
// completions that spans part of [fault, promoted] (the failover, from its
// command to the new primary taking writes); recovery runs from `fault` to
// the completion that ends that gap, the first commit after the outage.
// Only completions up to `window_end` (the next fault, or the end of the
// workload) count. Both -1 when no write completed after the fault.
struct Recovery {
  double recovery_seconds = -1;
  double outage_seconds = -1;
};
Recovery MeasureRecovery(SteadyTime fault, SteadyTime promoted, SteadyTime window_end,
                         std::vector<SteadyTime> write_ends);

}  // namespace chopar::faults
