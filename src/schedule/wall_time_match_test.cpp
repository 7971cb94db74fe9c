#include "schedule/wall_time_match.hpp"

#include <gtest/gtest.h>

#include "schedule/cron.hpp"

namespace chopar::schedule {
namespace {

LocalMinutes Wall(int y, unsigned m, unsigned d, int hour, int minute) {
  return date::local_days(date::year(y) / date::month(m) / date::day(d)) +
         std::chrono::hours(hour) + std::chrono::minutes(minute);
}

date::local_seconds Far() { return date::local_days(date::year(2100) / 1 / 1); }

TEST(NextMatchingWallTime, FromItselfCounts) {
  EXPECT_EQ(NextMatchingWallTime(ParseCron("30 2 * * *"), Wall(2026, 3, 29, 2, 30), Far()),
            Wall(2026, 3, 29, 2, 30));
}

TEST(NextMatchingWallTime, LaterTheSameHourThenNextHourThenNextDay) {
  const CronPattern p = ParseCron("10,50 3,7 * * *");
  EXPECT_EQ(NextMatchingWallTime(p, Wall(2026, 1, 1, 3, 11), Far()), Wall(2026, 1, 1, 3, 50));
  EXPECT_EQ(NextMatchingWallTime(p, Wall(2026, 1, 1, 3, 51), Far()), Wall(2026, 1, 1, 7, 10));
  EXPECT_EQ(NextMatchingWallTime(p, Wall(2026, 1, 1, 7, 51), Far()), Wall(2026, 1, 2, 3, 10));
}

TEST(NextMatchingWallTime, SkipsMonthsAcrossTheYearEnd) {
  EXPECT_EQ(NextMatchingWallTime(ParseCron("0 0 15 MAR,OCT *"), Wall(2026, 10, 16, 0, 0), Far()),
            Wall(2027, 3, 15, 0, 0));
}

TEST(NextMatchingWallTime, LimitIsExclusive) {
  const CronPattern p = ParseCron("0 12 * * *");
  EXPECT_FALSE(
      NextMatchingWallTime(p, Wall(2026, 1, 1, 0, 0), Wall(2026, 1, 1, 12, 0)).has_value());
  EXPECT_EQ(NextMatchingWallTime(p, Wall(2026, 1, 1, 0, 0), Wall(2026, 1, 1, 12, 1)),
            Wall(2026, 1, 1, 12, 0));
}

TEST(NextMatchingWallTime, ImpossibleDateGivesNothing) {
  EXPECT_FALSE(
      NextMatchingWallTime(ParseCron("0 0 30 2 *"), Wall(2026, 1, 1, 0, 0), Far()).has_value());
}

TEST(NextMatchingWallTime, EmptyPatternGivesNothing) {
  EXPECT_FALSE(NextMatchingWallTime(CronPattern{}, Wall(2026, 1, 1, 0, 0), Far()).has_value());
}

}  // namespace
}  // namespace chopar::schedule
