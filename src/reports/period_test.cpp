#include "reports/period.hpp"

#include <gtest/gtest.h>

#include "reports/test_jobs.hpp"

namespace chopar::reports {
namespace {

using date::year_month_day;
using testing::At;
using testing::Compiled;
using testing::Tashkent;

year_month_day Day(int y, unsigned m, unsigned d) {
  return date::year(y) / date::month(m) / date::day(d);
}

TEST(IsoWeekNameTest, WeekYearIsTheYearOfTheWeeksThursday) {
  EXPECT_EQ(IsoWeekName(Day(2026, 8, 16)), "2026-W33");
  EXPECT_EQ(IsoWeekName(Day(2026, 8, 10)), "2026-W33");
  // 2026 starts on a Thursday, so it has 53 weeks; the last runs into 2027.
  EXPECT_EQ(IsoWeekName(Day(2026, 12, 28)), "2026-W53");
  EXPECT_EQ(IsoWeekName(Day(2027, 1, 3)), "2026-W53");
  EXPECT_EQ(IsoWeekName(Day(2027, 1, 4)), "2027-W01");
  // A December Monday in the next year's week 1.
  EXPECT_EQ(IsoWeekName(Day(2025, 12, 29)), "2026-W01");
  EXPECT_EQ(IsoWeekName(Day(2024, 12, 30)), "2025-W01");
  EXPECT_EQ(IsoWeekName(Day(2021, 1, 3)), "2020-W53");
}

TEST(PeriodOfTest, MondayMorningReportsTheLastFullIsoWeek) {
  const ReportJob weekly = Compiled(testing::WeeklySettings());
  const ReportPeriod period = PeriodOf(weekly, Tashkent(2026, 8, 17, 9));
  EXPECT_EQ(period.key, "weekly:2026-W33");
  EXPECT_EQ(period.from, Tashkent(2026, 8, 10, 0));
  EXPECT_EQ(period.to, Tashkent(2026, 8, 17, 0));
  // Late the same Monday, and on the Sunday that ends the next week: the same rule.
  EXPECT_EQ(PeriodOf(weekly, Tashkent(2026, 8, 17, 23, 59)).key, "weekly:2026-W33");
  EXPECT_EQ(PeriodOf(weekly, Tashkent(2026, 8, 23, 12)).key, "weekly:2026-W33");
  EXPECT_EQ(PeriodOf(weekly, Tashkent(2026, 8, 24, 0)).key, "weekly:2026-W34");
}

TEST(PeriodOfTest, FirstMondayOfTheYearReportsWeek53OfTheYearBefore) {
  const ReportJob weekly = Compiled(testing::WeeklySettings());
  const ReportPeriod period = PeriodOf(weekly, Tashkent(2027, 1, 4, 9));
  EXPECT_EQ(period.key, "weekly:2026-W53");
  EXPECT_EQ(period.from, Tashkent(2026, 12, 28, 0));
  EXPECT_EQ(period.to, Tashkent(2027, 1, 4, 0));
  // And a week that began in December belongs to the new year.
  EXPECT_EQ(PeriodOf(weekly, Tashkent(2026, 1, 5, 9)).key, "weekly:2026-W01");
  EXPECT_EQ(PeriodOf(weekly, Tashkent(2026, 1, 5, 9)).from, Tashkent(2025, 12, 29, 0));
}

TEST(PeriodOfTest, FirstOfTheMonthReportsThePreviousMonth) {
  const ReportJob monthly = Compiled(testing::MonthlySettings());
  const ReportPeriod august = PeriodOf(monthly, Tashkent(2026, 8, 1, 9));
  EXPECT_EQ(august.key, "monthly:2026-07");
  EXPECT_EQ(august.from, Tashkent(2026, 7, 1, 0));
  EXPECT_EQ(august.to, Tashkent(2026, 8, 1, 0));
  const ReportPeriod january = PeriodOf(monthly, Tashkent(2027, 1, 1, 9));
  EXPECT_EQ(january.key, "monthly:2026-12");
  EXPECT_EQ(january.from, Tashkent(2026, 12, 1, 0));
  EXPECT_EQ(january.to, Tashkent(2027, 1, 1, 0));
  EXPECT_EQ(PeriodOf(monthly, Tashkent(2026, 3, 1, 9)).from, Tashkent(2026, 2, 1, 0));
}

TEST(PeriodOfTest, DayIsTheCurrentDayInTheJobsZoneSoFar) {
  const ReportJob anomaly = Compiled(testing::AnomalySettings());
  const ReportPeriod period = PeriodOf(anomaly, Tashkent(2026, 8, 17, 20));
  EXPECT_EQ(period.key, "anomaly:2026-08-17");
  EXPECT_EQ(period.from, Tashkent(2026, 8, 17, 0));
  EXPECT_EQ(period.to, Tashkent(2026, 8, 17, 20));
  // 01:30 in Tashkent is still the 16th in UTC: the zone's day counts.
  EXPECT_EQ(PeriodOf(anomaly, At("2026-08-16T20:30:00Z")).key, "anomaly:2026-08-17");

  // A daily summary is keyed by its own name.
  ReportJobSettings daily = testing::WeeklySettings();
  daily.name = "daily";
  daily.period = "day";
  EXPECT_EQ(PeriodOf(Compiled(daily), Tashkent(2026, 8, 17, 20)).key, "daily:2026-08-17");
}

TEST(PeriodOfTest, LocalMidnightsFollowDaylightSaving) {
  ReportJobSettings berlin = testing::WeeklySettings();
  berlin.timezone = "Europe/Berlin";
  // Week 13 of 2026 ends with the spring-forward night of Sunday 29 March.
  const ReportPeriod period = PeriodOf(Compiled(berlin), At("2026-03-30T07:00:00Z"));
  EXPECT_EQ(period.key, "weekly:2026-W13");
  EXPECT_EQ(period.from, At("2026-03-22T23:00:00Z"));  // +01:00
  EXPECT_EQ(period.to, At("2026-03-29T22:00:00Z"));    // +02:00
}

TEST(SameWeekdayWindowsTest, TodaySoFarThenTheSameHoursOneAndTwoWeeksBefore) {
  const auto* zone = date::locate_zone("Asia/Tashkent");
  const auto windows = SameWeekdayWindows(zone, Tashkent(2026, 8, 17, 20), 2);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[0], std::make_pair(Tashkent(2026, 8, 17, 0), Tashkent(2026, 8, 17, 20)));
  EXPECT_EQ(windows[1], std::make_pair(Tashkent(2026, 8, 10, 0), Tashkent(2026, 8, 10, 20)));
  EXPECT_EQ(windows[2], std::make_pair(Tashkent(2026, 8, 3, 0), Tashkent(2026, 8, 3, 20)));
}

TEST(SameWeekdayWindowsTest, WallClockHoursAcrossADaylightSavingChange) {
  const auto* zone = date::locate_zone("Europe/Berlin");
  // Monday 6 April 2026, 20:00 CEST; two weeks before was still CET.
  const auto windows = SameWeekdayWindows(zone, At("2026-04-06T18:00:00Z"), 2);
  EXPECT_EQ(windows[0].first, At("2026-04-05T22:00:00Z"));
  EXPECT_EQ(windows[2].first, At("2026-03-22T23:00:00Z"));
  EXPECT_EQ(windows[2].second, At("2026-03-23T19:00:00Z"));  // 20:00 CET
}

}  // namespace
}  // namespace chopar::reports
