#include "failover_fault.hpp"

#include <algorithm>

#include "core/process.hpp"

namespace chopar::faults {

using Steady = std::chrono::steady_clock;

FailoverDriver::FailoverDriver(std::string script, std::string dir, std::chrono::seconds every,
                               std::function<void(const std::string&)> log)
    : script_(std::move(script)), dir_(std::move(dir)), every_(every), log_(std::move(log)) {}

FailoverDriver::~FailoverDriver() { Stop(); }

void FailoverDriver::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void FailoverDriver::RequestStop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

bool FailoverDriver::Running() const {
  std::lock_guard lock(mutex_);
  return thread_.joinable() && !finished_;
}

void FailoverDriver::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
}

std::vector<FailoverRun> FailoverDriver::runs() const {
  std::lock_guard lock(mutex_);
  return runs_;
}

void FailoverDriver::Loop() {
  auto next = Steady::now() + every_ / 2;
  for (int number = 1;; ++number) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_until(lock, next, [this] { return stopping_; })) {
        finished_ = true;
        return;
      }
    }
    const auto began = Steady::now();
    RunOne(number);
    // Never closer than every_, and never before the cluster is whole again.
    next = std::max(began + every_, Steady::now());
  }
}

int FailoverDriver::Command(const std::string& action) {
  try {
    return core::RunProcess({"bash", script_, action, dir_});
  } catch (const std::exception&) {
    return 127;
  }
}

void FailoverDriver::RunOne(int number) {
  FailoverRun run;
  run.number = number;
  const bool planned = number % 2 == 1;
  run.kind = planned ? "switchover" : "kill -9 of the primary";
  const std::string action = planned ? "switchover" : "kill-primary";
  log_("PostgreSQL failover " + std::to_string(number) + " begins: " + run.kind);
  run.began = Steady::now();
  run.began_wall = std::chrono::system_clock::now();
  if (const int status = Command(action); status != 0) {
    run.ok = false;
    run.error = "cluster.sh " + action + " exited with " + std::to_string(status);
  }
  run.promoted = Steady::now();
  run.promoted_wall = std::chrono::system_clock::now();
  log_("PostgreSQL failover " + std::to_string(number) + " done: the new primary takes writes");
  if (const int status = Command("wait-healthy"); status != 0) {
    run.ok = false;
    run.error += (run.error.empty() ? "" : "; ") +
                 std::string("cluster.sh wait-healthy exited with ") + std::to_string(status);
    // Recorded; but the next failover should not start on a cluster still
    // rejoining (a pg_basebackup takes its time): it would only fail too.
    for (int retry = 0; retry < 4 && Command("wait-healthy") != 0; ++retry) {
    }
  }
  run.healthy = Steady::now();
  log_("PostgreSQL cluster healthy again after failover " + std::to_string(number));
  std::lock_guard lock(mutex_);
  runs_.push_back(std::move(run));
}

Recovery MeasureRecovery(SteadyTime fault, SteadyTime promoted, SteadyTime window_end,
                         std::vector<SteadyTime> write_ends) {
  std::sort(write_ends.begin(), write_ends.end());
  Recovery recovery;
  // The gap before the first completion after the fault starts at the last
  // one before it (or at the fault, if there was none).
  const auto first_after = std::upper_bound(write_ends.begin(), write_ends.end(), fault);
  SteadyTime previous = first_after == write_ends.begin() ? fault : *std::prev(first_after);
  std::chrono::duration<double> longest{-1};
  for (auto it = first_after; it != write_ends.end() && *it <= window_end; ++it) {
    // Only a gap that overlaps the failover is the failover's.
    if (previous <= promoted && *it - previous > longest) {
      longest = *it - previous;
      recovery.outage_seconds = longest.count();
      recovery.recovery_seconds = std::chrono::duration<double>(*it - fault).count();
    }
    previous = *it;
  }
  return recovery;
}

}  // namespace chopar::faults
