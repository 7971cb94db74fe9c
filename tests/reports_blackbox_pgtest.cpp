// Black-box: two `chopar serve` processes with the same [[reports]] job on one
// database report its period once; each admin gets one message through the
// normal delivery pipeline (the email sink), and GET /v1/reports shows it.

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::BlackBox;
using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr char kApiKey[] = "reports-key";

// A daily summary due every minute: its period (the day) is reported once,
// however many minutes and processes come by.
constexpr char kConfig[] = R"(
[[reports]]
name = "daily"
kind = "summary"
cron = "* * * * *"
timezone = "Asia/Tashkent"
period = "day"
catchup_window_seconds = 120
source = "builtin"
recipients = "admins"
locale = "en"
)";

// Steps the reports loop of the process behind `api` has started
// (chopar_loop_steps_total{loop="reports"}); steps run one after another.
int ReportSteps(Api& api) {
  const std::string metrics = api.Call("GET", "/metrics").body;
  const std::string name = "chopar_loop_steps_total{loop=\"reports\"} ";
  const auto at = metrics.find(name);
  return at == std::string::npos ? 0 : std::stoi(metrics.substr(at + name.size()));
}

// Takes a minute of real time: both processes tick at one minute's
// occurrence and again at the next.
TEST_F(BlackBox, TwoProcessesReportAPeriodOnceToEachAdmin) {
  if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
  testing::TestDatabase db;
  db.Scalar(
      "INSERT INTO chopar.users (id, email, admin) VALUES (1, 'aziz@example.uz', true), "
      "(2, 'dilnoza@example.uz', true), (3, 'sardor@example.uz', false)");
  const std::filesystem::path config = dir_ / "chopar.toml";
  std::ofstream(config) << kConfig;

  const int port_a = FreeLoopbackPort();
  const int port_b = FreeLoopbackPort();
  // Two hosts, as it were: one database, a data_dir each.
  const auto start = [&](int port, const std::string& log) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{CHOPAR_BINARY, "--config", config.string(), "serve"},
        std::map<std::string, std::string>{
            {"CHOPAR_DATABASE_URL", db.url()},
            {"CHOPAR_SERVER_API_KEY", kApiKey},
            {"CHOPAR_SERVER_LISTEN", "127.0.0.1:" + std::to_string(port)},
            {"CHOPAR_SERVER_DATA_DIR", (dir_ / ("var-" + log)).string()}},
        dir_ / log, dir_);
  };
  auto a = start(port_a, "a.log");
  auto b = start(port_b, "b.log");
  Api api(port_a, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << a->Output();

  const auto sink_messages = [&] {
    return db.Count(
        "SELECT count(*) FROM chopar.sink_messages m JOIN chopar.deliveries d "
        "ON d.id = m.delivery_id JOIN chopar.notifications n "
        "ON n.id = d.notification_id WHERE n.type = 'report.summary'");
  };
  ASSERT_TRUE(WaitUntil([&] { return sink_messages() >= 2; }, 60s)) << a->Output() << b->Output();
  // Each process has finished a tick, then started another at the next
  // minute's occurrence (same day, same period): nothing more is sent.
  Api api_b(port_b, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return ReportSteps(api) >= 2 && ReportSteps(api_b) >= 2; }, 90s))
      << a->Output() << b->Output();

  // Every period reported (one, or two across midnight in Tashkent) reached
  // each admin exactly once.
  const std::int64_t runs = db.Count("SELECT count(*) FROM chopar.report_runs");
  EXPECT_GE(runs, 1);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.report_runs WHERE recipients = 2"), runs);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notifications WHERE type = 'report.summary'"),
            2 * runs);
  EXPECT_EQ(db.Count("SELECT count(*) FROM chopar.notifications WHERE type = 'report.summary' "
                     "AND user_id = 3"),
            0);
  EXPECT_EQ(sink_messages(), 2 * runs);
  EXPECT_NE((a->Output() + b->Output()).find("sent to 2 recipient(s)"), std::string::npos);
  EXPECT_EQ((a->Output() + b->Output()).find("reports loop"), std::string::npos)
      << "a tick failed: " << a->Output() << b->Output();

  const auto listed = api.Call("GET", "/v1/reports");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const auto report = nlohmann::json::parse(listed.body)["reports"][0];
  EXPECT_EQ(report["name"], "daily");
  EXPECT_EQ(report["runs"][0]["recipients"], 2);
  EXPECT_EQ(report["overdue"], false);

  a->Signal(SIGTERM);
  b->Signal(SIGTERM);
  EXPECT_EQ(a->Wait(30s), 0) << a->Output();
  EXPECT_EQ(b->Wait(30s), 0) << b->Output();
}

TEST_F(BlackBox, BadReportJobStopsTheStartNamingJobAndField) {
  const std::filesystem::path config = dir_ / "chopar.toml";
  std::ofstream(config) << "[[reports]]\nname = \"weekly\"\ncron = \"0 9 * * 1\"\n"
                           "timezone = \"Asia/Tashkent\"\nperiod = \"fortnight\"\n";
  ChildProcess chopar({CHOPAR_BINARY, "--config", config.string(), "serve"}, {}, dir_ / "bad.log",
                      dir_);
  EXPECT_EQ(chopar.Wait(30s), 1);
  EXPECT_NE(chopar.Output().find(
                "config: [[reports]] \"weekly\" period = \"fortnight\" is not valid (day, week or "
                "month)"),
            std::string::npos)
      << chopar.Output();
}

}  // namespace
}  // namespace chopar
