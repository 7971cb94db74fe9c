// MeasureRecovery (failover_fault.hpp): the write outage of a failover from
// the completions of successful writes.

#include "failover_fault.hpp"

#include <gtest/gtest.h>

namespace chopar::faults {
namespace {

using namespace std::chrono_literals;

const SteadyTime kT0{};  // the fault

TEST(MeasureRecovery, TheLongestGapAcrossTheFailoverIsTheOutage) {
  // Writes every 100 ms until 2 s after the fault (a switchover's
  // preparation), none until 9 s, then every 100 ms again.
  std::vector<SteadyTime> ends;
  for (auto at = -1000ms; at <= 2000ms; at += 100ms) ends.push_back(kT0 + at);
  for (auto at = 9000ms; at <= 12000ms; at += 100ms) ends.push_back(kT0 + at);
  const Recovery r = MeasureRecovery(kT0, kT0 + 8500ms, kT0 + 60s, ends);
  EXPECT_DOUBLE_EQ(r.outage_seconds, 7.0);
  EXPECT_DOUBLE_EQ(r.recovery_seconds, 9.0);
}

TEST(MeasureRecovery, AGapAfterThePromotionIsNotTheFailovers) {
  // The outage (1 s → 4 s) spans the promotion at 3 s; a longer gap later
  // (10 s → 20 s: the workload paused) starts after it.
  const std::vector<SteadyTime> ends = {kT0 - 100ms, kT0 + 1s, kT0 + 4s, kT0 + 10s, kT0 + 20s};
  const Recovery r = MeasureRecovery(kT0, kT0 + 3s, kT0 + 60s, ends);
  EXPECT_DOUBLE_EQ(r.outage_seconds, 3.0);
  EXPECT_DOUBLE_EQ(r.recovery_seconds, 4.0);
}

TEST(MeasureRecovery, NoWriteBeforeTheFaultCountsFromTheFault) {
  const Recovery r = MeasureRecovery(kT0, kT0 + 2s, kT0 + 60s, {kT0 + 5s, kT0 + 5100ms});
  EXPECT_DOUBLE_EQ(r.outage_seconds, 5.0);
  EXPECT_DOUBLE_EQ(r.recovery_seconds, 5.0);
}

TEST(MeasureRecovery, NoWriteAfterTheFaultWithinTheWindowIsNone) {
  const Recovery r = MeasureRecovery(kT0, kT0 + 2s, kT0 + 30s, {kT0 - 1s, kT0 + 31s});
  EXPECT_LT(r.outage_seconds, 0);
  EXPECT_LT(r.recovery_seconds, 0);
}

}  // namespace
}  // namespace chopar::faults
