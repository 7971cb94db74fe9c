#include "reports/job.hpp"

#include <gtest/gtest.h>

#include "reports/test_jobs.hpp"

namespace chopar::reports {
namespace {

// The message CompileReportJobs throws for `settings`, or "(valid)".
std::string Refusal(const std::vector<ReportJobSettings>& settings) {
  try {
    CompileReportJobs(settings);
  } catch (const JobConfigError& e) {
    return e.what();
  }
  return "(valid)";
}

template <typename Change>
std::string RefusalOfWeekly(Change change) {
  ReportJobSettings settings = testing::WeeklySettings();
  change(settings);
  return Refusal({settings});
}

TEST(CompileReportJobsTest, TheDocumentsThreeJobs) {
  const auto jobs = testing::DocumentJobs();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "weekly");
  EXPECT_EQ(jobs[0].kind, ReportKind::kSummary);
  EXPECT_EQ(jobs[0].period, Period::kWeek);
  EXPECT_EQ(jobs[0].zone->name(), "Asia/Tashkent");
  EXPECT_FALSE(jobs[0].source_url);
  EXPECT_FALSE(jobs[0].recipient_ids);
  EXPECT_EQ(jobs[1].period, Period::kMonth);
  EXPECT_EQ(jobs[2].kind, ReportKind::kAnomaly);
  EXPECT_DOUBLE_EQ(jobs[2].threshold, 0.5);
}

TEST(CompileReportJobsTest, DefaultsOfAnAnomalyJob) {
  ReportJobSettings settings;
  settings.name = "alerts";
  settings.kind = "anomaly";
  settings.cron = "0 20 * * *";
  const ReportJob job = testing::Compiled(settings);
  EXPECT_EQ(job.period, Period::kDay);
  EXPECT_EQ(job.timezone, "UTC");
  EXPECT_EQ(job.locale, "en");
  EXPECT_DOUBLE_EQ(job.threshold, kDefaultThreshold);
  EXPECT_EQ(job.catchup_window, std::chrono::seconds(86400));
}

TEST(CompileReportJobsTest, EachBadFieldIsNamedWithItsJob) {
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.cron = "0 25 * * 1"; }),
            "\"weekly\" cron = \"0 25 * * 1\" is not valid (cron: hour field: value 25 out of "
            "range 0-23 at position 3)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.timezone = "Asia/Toshkent"; }),
            "\"weekly\" timezone = \"Asia/Toshkent\" is not valid (unknown time zone "
            "\"Asia/Toshkent\")");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.period = "fortnight"; }),
            "\"weekly\" period = \"fortnight\" is not valid (day, week or month)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.period = ""; }),
            "\"weekly\" period is required for a summary (day, week or month)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.kind = "digest"; }),
            "\"weekly\" kind = \"digest\" is not valid (summary or anomaly)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.source = "ftp://stats.example.uz/weekly"; }),
            "\"weekly\" source = \"ftp://stats.example.uz/weekly\" is not valid (\"builtin\" or "
            "an http(s) URL: unsupported scheme \"ftp\")");
  EXPECT_NE(RefusalOfWeekly([](auto& s) { s.source = "stats"; }).find("\"weekly\" source = "),
            std::string::npos);
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.locale = "ru"; }),
            "\"weekly\" locale = \"ru\" is not valid (en or uz)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.threshold = 0.5; }),
            "\"weekly\" threshold applies to anomaly jobs only");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.catchup_window = std::chrono::seconds(0); }),
            "\"weekly\" catchup_window_seconds = 0 is not valid (from 1 to 31622400)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.recipient_ids = std::vector<std::int64_t>{}; }),
            "\"weekly\" recipients = [] is not valid (\"admins\" or user ids)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) {
              s.recipient_ids = std::vector<std::int64_t>{5, -1};
            }),
            "\"weekly\" recipients = -1 is not valid (user ids are positive)");
  EXPECT_EQ(RefusalOfWeekly([](auto& s) { s.name = "weekly report"; }),
            "\"weekly report\" name = \"weekly report\" is not valid (1-64 characters of A-Z a-z "
            "0-9 _ . -, starting with a letter or digit)");
}

TEST(CompileReportJobsTest, AnomalyThresholdAndBuiltinPeriod) {
  ReportJobSettings anomaly = testing::AnomalySettings();
  anomaly.threshold = -1;
  EXPECT_EQ(Refusal({anomaly}),
            "\"anomaly\" threshold = -1.000000 is not valid (a positive fraction: 0.5 alerts "
            "beyond ±50%)");
  anomaly.threshold = 0.3;
  anomaly.period = "week";
  EXPECT_NE(Refusal({anomaly}).find("period must be day"), std::string::npos);
  // An application's own anomaly endpoint may report any period.
  anomaly.source = "https://shop.example.uz/stats/anomalies";
  EXPECT_EQ(Refusal({anomaly}), "(valid)");
}

TEST(CompileReportJobsTest, NamesAreRequiredAndUnique) {
  ReportJobSettings unnamed = testing::WeeklySettings();
  unnamed.name = "";
  EXPECT_EQ(Refusal({testing::WeeklySettings(), unnamed}), "#2 name is required");
  EXPECT_EQ(Refusal({testing::WeeklySettings(), testing::WeeklySettings()}),
            "\"weekly\" name is used by an earlier job");
}

TEST(CompileReportJobsTest, RecipientListIsKeptOnceEach) {
  ReportJobSettings settings = testing::WeeklySettings();
  settings.recipient_ids = std::vector<std::int64_t>{8, 3, 8};
  EXPECT_EQ(testing::Compiled(settings).recipient_ids, (std::vector<std::int64_t>{3, 8}));
}

}  // namespace
}  // namespace chopar::reports
