#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

// The three jobs of the README (the source document's bot).
constexpr char kThreeJobs[] = R"(
[[reports]]
name = "weekly"
kind = "summary"
cron = "0 9 * * 1"
timezone = "Asia/Tashkent"
period = "week"
catchup_window_seconds = 54000
source = "builtin"
recipients = "admins"
locale = "uz"

[[reports]]
name = "monthly"
kind = "summary"
cron = "0 9 1 * *"
timezone = "Asia/Tashkent"
period = "month"
catchup_window_seconds = 54000
source = "https://shop.example.uz/stats/monthly"
timeout_seconds = 2.5
recipients = [1, 2]
locale = "uz"

[[reports]]
name = "anomaly"
kind = "anomaly"
cron = "0 20 * * *"
timezone = "Asia/Tashkent"
period = "day"
catchup_window_seconds = 14400
locale = "uz"
threshold = 0.5
)";

using ReportConfigTest = ConfigTest;

// The README's [[reports]] example: the first ```toml block that has one.
std::string ReadmeReportsExample() {
  std::ifstream in(CHOPAR_README);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t at = text.find("```toml\n"); at != std::string::npos;
       at = text.find("```toml\n", at + 1)) {
    const std::size_t start = at + 8;
    const std::string block = text.substr(start, text.find("```", start) - start);
    if (block.find("[[reports]]") != std::string::npos) return block;
  }
  return "";
}

TEST_F(ReportConfigTest, TheReadmesThreeJobsLoad) {
  const std::string example = ReadmeReportsExample();
  ASSERT_FALSE(example.empty());
  const Config config = Load(example);
  const auto jobs = reports::CompileReportJobs(config.reports);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].cron, "0 9 * * 1");
  EXPECT_EQ(jobs[1].cron, "0 9 1 * *");
  EXPECT_EQ(jobs[2].cron, "0 20 * * *");
  for (const auto& job : jobs) EXPECT_EQ(job.timezone, "Asia/Tashkent");
}

TEST_F(ReportConfigTest, ReadsEveryJobWithItsKeys) {
  const Config config = Load(kThreeJobs);
  ASSERT_EQ(config.reports.size(), 3u);
  const auto& weekly = config.reports[0];
  EXPECT_EQ(weekly.name, "weekly");
  EXPECT_EQ(weekly.cron, "0 9 * * 1");
  EXPECT_EQ(weekly.timezone, "Asia/Tashkent");
  EXPECT_EQ(weekly.period, "week");
  EXPECT_EQ(weekly.catchup_window, std::chrono::seconds(54000));
  EXPECT_EQ(weekly.recipient_ids, std::nullopt);
  EXPECT_EQ(weekly.locale, "uz");
  const auto& monthly = config.reports[1];
  EXPECT_EQ(monthly.source, "https://shop.example.uz/stats/monthly");
  EXPECT_EQ(monthly.timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(monthly.recipient_ids, (std::vector<std::int64_t>{1, 2}));
  const auto& anomaly = config.reports[2];
  EXPECT_EQ(anomaly.kind, "anomaly");
  EXPECT_EQ(anomaly.threshold, 0.5);
  EXPECT_TRUE(Load("").reports.empty());
}

TEST_F(ReportConfigTest, BadCronZonePeriodOrUrlStopsTheStartNamingJobAndField) {
  EXPECT_EQ(
      FileRefusal("[[reports]]\nname = \"weekly\"\ncron = \"0 25 * * 1\"\nperiod = \"week\"\n"),
      "config: [[reports]] \"weekly\" cron = \"0 25 * * 1\" is not valid (cron: hour "
      "field: value 25 out of range 0-23 at position 3)");
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"w\"\ncron = \"0 9 * * 1\"\nperiod = \"week\"\n"
                        "timezone = \"Asia/Toshkent\"\n"),
            "config: [[reports]] \"w\" timezone = \"Asia/Toshkent\" is not valid (unknown time "
            "zone \"Asia/Toshkent\")");
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"w\"\ncron = \"0 9 * * 1\"\nperiod = \"weekly\"\n"),
            "config: [[reports]] \"w\" period = \"weekly\" is not valid (day, week or month)");
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"w\"\ncron = \"0 9 * * 1\"\nperiod = \"week\"\n"
                        "source = \"shop.example.uz/stats\"\n"),
            "config: [[reports]] \"w\" source = \"shop.example.uz/stats\" is not valid "
            "(\"builtin\" or an http(s) URL: it must begin with http:// or https://)");
  // The second job, still without a name when it fails.
  EXPECT_EQ(FileRefusal(std::string(kThreeJobs) + "[[reports]]\ncron = \"0 9 * * *\"\n"),
            "config: [[reports]] #4 name is required");
}

TEST_F(ReportConfigTest, UnknownKeysAndWrongTypesAreRefused) {
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"weekly\"\ncronn = \"0 9 * * 1\"\n"),
            "config: [[reports]] \"weekly\" unknown key cronn (did you mean cron?)");
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"a\"\nthreshold = \"half\"\n"),
            "config: [[reports]] \"a\" threshold has the wrong type (expected a number)");
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"a\"\nrecipients = \"owners\"\n"),
            "config: [[reports]] \"a\" recipients = \"owners\" is not valid (\"admins\" or user "
            "ids)");
  EXPECT_EQ(FileRefusal("[[reports]]\nname = \"a\"\nrecipients = [\"1\"]\n"),
            "config: [[reports]] \"a\" recipients has the wrong type (expected user ids)");
  EXPECT_EQ(FileRefusal("[reports]\nname = \"a\"\n"),
            "config: [[reports]] must be an array of tables: one [[reports]] header per job");
  EXPECT_EQ(FileRefusal("[[report]]\nname = \"a\"\n"),
            "config: unknown section [report] (did you mean [[reports]]?)");
}

}  // namespace
}  // namespace chopar::app
