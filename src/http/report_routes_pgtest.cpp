// GET /v1/reports (docs/api.md "Reports") against the in-process server.

#include <gtest/gtest.h>

#include "http/http_server_fixture.hpp"
#include "http/report_routes.hpp"
#include "http/report_view.hpp"
#include "reports/pgtest_fixture.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;
using reports::testing::Tashkent;
using testing::kAuth;

class ReportRoutesTest : public testing::HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    status_.emplace(*pool_, reports::testing::DocumentJobs(), report_clock_);
    // Routes are added before the server starts: a new server with them.
    client_.reset();
    server_ = std::make_unique<Server>(DefaultSettings(),
                                       Dependencies{*pool_, *notify_, *users_, *inbox_, metrics_});
    RegisterReportRoutes(server_->router(), *status_);
    server_->Start();
    client_ = std::make_unique<testing::HttpClient>(server_->port());
  }

  json List() {
    const auto response = client().Get("/v1/reports", {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body)["reports"];
  }

  core::SimulatedClock report_clock_{Tashkent(2026, 8, 17, 9, 30)};
  std::optional<reports::ReportStatus> status_;
};

TEST_F(ReportRoutesTest, EachJobWithWhenItIsDueItsRunsAndItsLastError) {
  PutUser(1, {{"email", "admin@example.uz"}});
  pool_->Acquire()->ExecText("UPDATE chopar.users SET admin = true", {});

  // Nothing ran yet: the weekly report is overdue since 09:00.
  json reports = List();
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0]["name"], "weekly");
  EXPECT_EQ(reports[0]["kind"], "summary");
  EXPECT_EQ(reports[0]["cron"], "0 9 * * 1");
  EXPECT_EQ(reports[0]["timezone"], "Asia/Tashkent");
  EXPECT_EQ(reports[0]["period"], "week");
  EXPECT_EQ(reports[0]["catchup_window_seconds"], 54000);
  EXPECT_EQ(reports[0]["source"], "builtin");
  EXPECT_EQ(reports[0]["recipients"], "admins");
  EXPECT_EQ(reports[0]["threshold"], nullptr);
  EXPECT_EQ(reports[0]["next_due_at"], "2026-08-17T04:00:00Z");
  EXPECT_EQ(reports[0]["next_period_key"], "weekly:2026-W33");
  EXPECT_EQ(reports[0]["overdue"], true);
  EXPECT_EQ(reports[0]["runs"], json::array());
  EXPECT_EQ(reports[1]["next_due_at"], "2026-09-01T04:00:00Z");
  EXPECT_EQ(reports[1]["next_period_key"], "monthly:2026-08");
  EXPECT_EQ(reports[2]["threshold"], 0.5);
  EXPECT_EQ(reports[2]["next_due_at"], "2026-08-17T15:00:00Z");
  EXPECT_EQ(reports[2]["next_period_key"], "anomaly:2026-08-17");
  EXPECT_EQ(reports[2]["overdue"], false);

  // The weekly source fails once, then reports.
  int calls = 0;
  reports::testing::ScriptedSource source(
      [&](const reports::ReportJob& job, const reports::ReportPeriod& period) {
        if (++calls == 1) throw reports::SourceError("HTTP 503");
        return reports::testing::ScriptedSource::DefaultAnswer(job, period);
      });
  core::MetricsRegistry metrics;
  reports::Runner runner(*pool_, reports::testing::DocumentJobs(), source, report_clock_, metrics);
  (void)runner.RunOnce();
  reports = List();
  EXPECT_EQ(reports[0]["last_error"], "HTTP 503");
  EXPECT_EQ(reports[0]["last_error_at"], "2026-08-17T04:30:00Z");
  EXPECT_EQ(reports[0]["failures"], 1);
  EXPECT_EQ(reports[0]["last_success_at"], nullptr);
  EXPECT_EQ(reports[0]["overdue"], true);

  report_clock_.Set(Tashkent(2026, 8, 17, 9, 31));
  ASSERT_TRUE(runner.RunOnce().ran);
  reports = List();
  EXPECT_EQ(reports[0]["runs"],
            json::parse(R"([{"period_key": "weekly:2026-W33", "due_at": "2026-08-17T04:00:00Z",
                             "ran_at": "2026-08-17T04:31:00Z", "recipients": 1}])"));
  EXPECT_EQ(reports[0]["last_success_at"], "2026-08-17T04:31:00Z");
  EXPECT_EQ(reports[0]["failures"], 0);
  EXPECT_EQ(reports[0]["last_error"], "HTTP 503");  // kept, with its time, for the record
  EXPECT_EQ(reports[0]["overdue"], false);
  EXPECT_EQ(reports[0]["next_due_at"], "2026-08-24T04:00:00Z");
  EXPECT_EQ(reports[0]["next_period_key"], "weekly:2026-W34");
}

TEST_F(ReportRoutesTest, NeedsTheServerKeyAndHidesSecretsOfTheSourceUrl) {
  EXPECT_EQ(client().Get("/v1/reports").status, 401);
  reports::ReportJobSettings settings = reports::testing::WeeklySettings();
  settings.source = "https://stats:pw@shop.example.uz/weekly?token=s3cret";
  const reports::ReportStatus status(*pool_, {reports::testing::Compiled(settings)}, report_clock_);
  EXPECT_EQ(ReportStatusView(status.List())["reports"][0]["source"],
            "https://shop.example.uz/weekly?…");
}

}  // namespace
}  // namespace chopar::http
