// The chaos lab (chaos_lab.hpp) as a test: a short run in `make test`, a long
// one with `make chaos` (CHOPAR_TEST_CHAOS_SECONDS, CHOPAR_TEST_CHAOS_SEED; the
// figures go to CHOPAR_TEST_CHAOS_REPORT when set). CHOPAR_TEST_CHAOS_SLOW_RECEIVER=1
// makes the outbox webhook a modest receiver (1-3 s an answer, backlog 16);
// off by default, so not in `make test`. The names start with
// CHOPAR_TEST_ because the chopar processes inherit the environment and
// refuse any other unknown CHOPAR_ variable.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "chaos_lab.hpp"
#include "testing/test_database.hpp"
#include "testing/test_server.hpp"

namespace chopar::faults {
namespace {

std::int64_t EnvNumber(const char* name, std::int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::stoll(value) : fallback;
}

TEST(ChaosLab, EveryDeliveryIsReceivedOnceWhateverFails) {
  if (!testing::TestDatabase::Available() || !testing::TestServer::Available()) {
    GTEST_SKIP() << "needs scripts/with-test-pg";
  }
  ChaosSettings settings;
  settings.duration = std::chrono::seconds(EnvNumber("CHOPAR_TEST_CHAOS_SECONDS", 45));
  settings.seed =
      static_cast<std::uint64_t>(EnvNumber("CHOPAR_TEST_CHAOS_SEED", std::random_device{}()));
  settings.slow_receiver = EnvNumber("CHOPAR_TEST_CHAOS_SLOW_RECEIVER", 0) != 0;
  settings.chopar_binary = CHOPAR_BINARY;
  settings.work_dir =
      std::filesystem::temp_directory_path() / ("chopar-chaos-" + std::to_string(getpid()));
  std::filesystem::remove_all(settings.work_dir);
  std::filesystem::create_directories(settings.work_dir);
  std::cout << "chaos lab: " << settings.duration.count() << " s, seed " << settings.seed
            << (settings.slow_receiver ? ", slow webhook receiver" : "") << ", logs in "
            << settings.work_dir << std::endl;

  testing::TestDatabase database;
  const ChaosReport report = RunChaos(settings, database.url());

  std::cout << report.Markdown();
  for (const std::string& line : report.problems) std::cout << "  problem: " << line << "\n";
  std::cout.flush();
  if (const char* path = std::getenv("CHOPAR_TEST_CHAOS_REPORT");
      path != nullptr && *path != '\0') {
    std::ofstream(path) << report.Markdown();
  }
  int faults = 0;
  for (const auto& [kind, count] : report.faults) faults += count;
  EXPECT_GT(faults, 0);
  EXPECT_GT(report.received, 0);
  // "Outcome unknown" needs a send cut short after its request left: a
  // process killed, or a provider that reset, stalled or never answered.
  bool cut_short = false;
  for (const auto& [kind, count] : report.faults) {
    for (const char* cause : {"kill -9", "no answer", "connection reset", "stall"}) {
      if (kind.find(cause) != std::string::npos) cut_short = true;
    }
  }
  if (!cut_short) {
    EXPECT_EQ(report.unknown_not_received, 0)
        << "\"outcome unknown\" with no send cut short by a fault";
  }
  EXPECT_TRUE(report.Clean()) << "logs kept in " << settings.work_dir;
  EXPECT_TRUE(report.problems.empty()) << report.problems.size() << " problems (above)";
  if (report.Clean() && report.problems.empty()) std::filesystem::remove_all(settings.work_dir);
}

}  // namespace
}  // namespace chopar::faults
