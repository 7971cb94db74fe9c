#include "reports/due.hpp"

#include <gtest/gtest.h>

#include <map>

#include "reports/test_jobs.hpp"

namespace chopar::reports {
namespace {

using testing::DocumentJobs;
using testing::Tashkent;

// The source document's due_task(): (job, period key) or nothing.
std::optional<std::pair<std::string, std::string>> Task(const std::vector<ReportJob>& jobs,
                                                        core::TimePoint now, const DoneSet& done) {
  const auto task = DueTask(jobs, now, done);
  if (!task) return std::nullopt;
  return std::make_pair(jobs[task->job].name, task->period.key);
}

using Task_ = std::optional<std::pair<std::string, std::string>>;
Task_ Expect(const std::string& job, const std::string& key) { return std::make_pair(job, key); }

// The document's four cases (2026-08-17 is a Monday).
TEST(DueTaskTest, WeeklyFiresMondayAfterNine) {
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 17, 9), {}),
            Expect("weekly", "weekly:2026-W33"));
}

TEST(DueTaskTest, WeeklyNotResentSameWeekSoTheEveningCheckIsNext) {
  const DoneSet done = {{"weekly", "weekly:2026-W33"}};
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 17, 21), done),
            Expect("anomaly", "anomaly:2026-08-17"));
}

TEST(DueTaskTest, QuietBeforeHours) {
  const DoneSet done = {{"weekly", "weekly:2026-W33"}};
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 18, 8), done), std::nullopt);
}

TEST(DueTaskTest, MissedMondayIsSkippedOnTuesdayBecauseItsWindowHasPassed) {
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 18, 9), {}), std::nullopt);
}

TEST(DueTaskTest, LateButNotLostWithinTheDay) {
  // Down at 09:00, up at 11:30: the report goes at 11:30 (">=", not "==").
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 17, 11, 30), {}),
            Expect("weekly", "weekly:2026-W33"));
  // The same at 23:59, the last minute of its window.
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 17, 23, 59), {}),
            Expect("weekly", "weekly:2026-W33"));
  // Before 09:00 nothing is due yet.
  EXPECT_EQ(Task(DocumentJobs(), Tashkent(2026, 8, 17, 8, 59), {}), std::nullopt);
}

TEST(DueTaskTest, OneTaskPerCheckInOrderWhenAMondayIsTheFirst) {
  // 2027-02-01 is a Monday: weekly and monthly are both due at 09:00, then
  // the anomaly check at 20:00. One per call, in configuration order.
  const auto jobs = DocumentJobs();
  DoneSet done;
  const core::TimePoint evening = Tashkent(2027, 2, 1, 21);
  EXPECT_EQ(Task(jobs, evening, done), Expect("weekly", "weekly:2027-W04"));
  done.emplace("weekly", "weekly:2027-W04");
  EXPECT_EQ(Task(jobs, evening, done), Expect("monthly", "monthly:2027-01"));
  done.emplace("monthly", "monthly:2027-01");
  EXPECT_EQ(Task(jobs, evening, done), Expect("anomaly", "anomaly:2027-02-01"));
  done.emplace("anomaly", "anomaly:2027-02-01");
  EXPECT_EQ(Task(jobs, evening, done), std::nullopt);
}

TEST(DueOccurrencesTest, BacklogAfterDowntimeIsOldestFirstAndLimitedToTheWindow) {
  ReportJobSettings daily = testing::AnomalySettings();
  daily.catchup_window = std::chrono::hours(24 * 3);
  const std::vector<ReportJob> jobs = {testing::Compiled(daily)};
  // Down since Thursday morning; up on Monday 21:00.
  const auto due = DueOccurrences(jobs, Tashkent(2026, 8, 17, 21));
  std::vector<std::string> keys;
  for (const Occurrence& o : due) keys.push_back(o.period.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"anomaly:2026-08-15", "anomaly:2026-08-16",
                                            "anomaly:2026-08-17"}));
  EXPECT_EQ(due.front().due, Tashkent(2026, 8, 15, 20));
}

TEST(DueOccurrencesTest, TwoFiringsInOnePeriodReportItOnce) {
  ReportJobSettings twice = testing::WeeklySettings();
  twice.cron = "0 9,18 * * 1";
  const std::vector<ReportJob> jobs = {testing::Compiled(twice)};
  const auto due = DueOccurrences(jobs, Tashkent(2026, 8, 17, 19));
  ASSERT_EQ(due.size(), 2u);
  const auto pending = NotDone(jobs, due, {});
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].due, Tashkent(2026, 8, 17, 9));
}

TEST(NextOccurrenceTest, NextFiringOfTheJobsPattern) {
  const auto jobs = DocumentJobs();
  EXPECT_EQ(NextOccurrence(jobs[0], Tashkent(2026, 8, 17, 9)), Tashkent(2026, 8, 24, 9));
  EXPECT_EQ(NextOccurrence(jobs[1], Tashkent(2026, 8, 17, 9)), Tashkent(2026, 9, 1, 9));
  EXPECT_EQ(NextOccurrence(jobs[2], Tashkent(2026, 8, 17, 20)), Tashkent(2026, 8, 18, 20));
}

// The source document found its state file resending the daily alert every
// minute after about three years. Four years of checks every 20 minutes,
// with every period kept: each period is due once, weekly on Mondays,
// monthly on the 1st, the anomaly check every evening.
TEST(DueTaskTest, FourYearsOfChecksReportEveryPeriodExactlyOnce) {
  const auto jobs = DocumentJobs();
  DoneSet done;
  std::map<std::string, core::TimePoint> reported_at;
  const core::TimePoint end = Tashkent(2030, 8, 17, 0);
  for (core::TimePoint now = Tashkent(2026, 8, 16, 12); now < end;
       now += std::chrono::minutes(20)) {
    const auto task = DueTask(jobs, now, done);
    if (!task) continue;
    ASSERT_TRUE(done.emplace(jobs[task->job].name, task->period.key).second) << task->period.key;
    reported_at[task->period.key] = now;
  }
  int weekly = 0, monthly = 0, anomaly = 0;
  for (const auto& [key, at] : reported_at) {
    weekly += key.starts_with("weekly:");
    monthly += key.starts_with("monthly:");
    anomaly += key.starts_with("anomaly:");
  }
  EXPECT_EQ(weekly, 209);    // Mondays from 2026-08-17 to 2030-08-12
  EXPECT_EQ(monthly, 48);    // 2026-09-01 .. 2030-08-01
  EXPECT_EQ(anomaly, 1462);  // every day from 2026-08-16 to 2030-08-16
  EXPECT_EQ(reported_at.at("weekly:2029-W36"), Tashkent(2029, 9, 10, 9));
  EXPECT_EQ(reported_at.at("anomaly:2029-09-10"), Tashkent(2029, 9, 10, 20));
}

}  // namespace
}  // namespace chopar::reports
