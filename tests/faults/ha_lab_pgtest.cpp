// The chaos lab on a pg_auto_failover cluster (make ha-lab,
// tests/faults/ha_lab.sh): CHOPAR_TEST_HA_SECONDS of the lab's workload and
// faults, with the failover fault in place of PostgreSQL crashes — a
// switchover and a kill -9 of the primary in turn, every
// CHOPAR_TEST_HA_FAILOVER_SECONDS (80 by default) — and a broadcast to
// every user each minute. CHOPAR_TEST_HA_LEASE_SECONDS sets [delivery]
// lease_seconds (the lab's 10 by default). The cluster is tests/ha/cluster.sh's:
// CHOPAR_TEST_HA_URL (its CHOPAR_HA_URL, a fresh database),
// CHOPAR_TEST_HA_DIR, CHOPAR_TEST_HA_SCRIPT. Skipped unless all are set, so
// not part of `make test` (its one-switchover slice is tests/ha's). The
// figures go to CHOPAR_TEST_HA_REPORT when set. CHOPAR_TEST_ names, since
// the chopar processes inherit the environment.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "chaos_lab.hpp"
#include "db/connection.hpp"
#include "db/migrate.hpp"

namespace chopar::faults {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

TEST(HaLab, EveryPromiseHoldsAcrossFailoversOfThePrimary) {
  const std::string seconds = Env("CHOPAR_TEST_HA_SECONDS"), url = Env("CHOPAR_TEST_HA_URL"),
                    dir = Env("CHOPAR_TEST_HA_DIR"), script = Env("CHOPAR_TEST_HA_SCRIPT");
  if (seconds.empty() || url.empty() || dir.empty() || script.empty()) {
    GTEST_SKIP() << "needs make ha-lab (CHOPAR_TEST_HA_SECONDS, _URL, _DIR, _SCRIPT)";
  }
  ChaosSettings settings;
  settings.duration = std::chrono::seconds(std::stoll(seconds));
  const std::string seed = Env("CHOPAR_TEST_HA_SEED");
  settings.seed = seed.empty() ? std::random_device{}() : std::stoull(seed);
  settings.failover = ChaosSettings::Failover{script, dir, std::chrono::seconds(80)};
  if (const std::string every = Env("CHOPAR_TEST_HA_FAILOVER_SECONDS"); !every.empty()) {
    settings.failover->every = std::chrono::seconds(std::stoll(every));
  }
  if (const std::string lease = Env("CHOPAR_TEST_HA_LEASE_SECONDS"); !lease.empty()) {
    settings.lease = std::chrono::seconds(std::stoll(lease));
  }
  settings.broadcast_every = std::chrono::seconds(60);
  settings.chopar_binary = CHOPAR_BINARY;
  settings.work_dir =
      std::filesystem::temp_directory_path() / ("chopar-ha-lab-" + std::to_string(getpid()));
  std::filesystem::remove_all(settings.work_dir);
  std::filesystem::create_directories(settings.work_dir);
  std::cout << "HA lab: " << settings.duration.count() << " s, a failover every "
            << settings.failover->every.count() << " s, lease " << settings.lease.count()
            << " s, seed " << settings.seed << ", logs in " << settings.work_dir << std::endl;
  {
    auto conn = db::Connection::Open(url);
    db::Migrate(conn);
  }

  const ChaosReport report = RunChaos(settings, url);

  std::cout << report.Markdown();
  for (const std::string& line : report.problems) std::cout << "  problem: " << line << "\n";
  std::cout.flush();
  if (const std::string path = Env("CHOPAR_TEST_HA_REPORT"); !path.empty()) {
    std::ofstream(path) << report.Markdown();
  }
  // A failover starts every `every` unless the one before (switchover or
  // failover, then wait-healthy) took longer: up to 2 minutes each, a
  // 10-minute run has 5.
  const auto expected = std::max<std::int64_t>(1, settings.duration / std::chrono::seconds(120));
  EXPECT_GE(static_cast<std::int64_t>(report.failovers.size()), expected);
  for (const FailoverFigure& failover : report.failovers) {
    EXPECT_TRUE(failover.error.empty()) << failover.error;
    EXPECT_GE(failover.recovery_seconds, 0) << "no write committed after a " << failover.kind;
  }
  EXPECT_GT(report.received, 0);
  EXPECT_GT(report.broadcasts, 0);
  EXPECT_TRUE(report.Clean()) << "logs kept in " << settings.work_dir;
  EXPECT_TRUE(report.problems.empty()) << report.problems.size() << " problems (above)";
  if (report.Clean() && report.problems.empty()) std::filesystem::remove_all(settings.work_dir);
}

}  // namespace
}  // namespace chopar::faults
