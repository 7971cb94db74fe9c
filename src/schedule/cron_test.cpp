#include "schedule/cron.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace chopar::schedule {
namespace {

template <std::size_t N>
std::bitset<N> Bits(std::initializer_list<int> values) {
  std::bitset<N> bits;
  for (int v : values) bits.set(static_cast<std::size_t>(v));
  return bits;
}

template <std::size_t N>
std::bitset<N> Range(int low, int high, int step = 1) {
  std::bitset<N> bits;
  for (int v = low; v <= high; v += step) bits.set(static_cast<std::size_t>(v));
  return bits;
}

date::year_month_day Ymd(int y, unsigned m, unsigned d) {
  return date::year_month_day(date::year(y), date::month(m), date::day(d));
}

TEST(CronParse, AllStarsSelectsEverythingAndIsWildcard) {
  const CronPattern p = ParseCron("* * * * *");
  EXPECT_EQ(p.minutes, Range<60>(0, 59));
  EXPECT_EQ(p.hours, Range<24>(0, 23));
  EXPECT_EQ(p.days_of_month, Range<32>(1, 31));
  EXPECT_EQ(p.months, Range<13>(1, 12));
  EXPECT_EQ(p.days_of_week, Range<7>(0, 6));
  EXPECT_TRUE(p.minute_starts_with_star);
  EXPECT_TRUE(p.hour_starts_with_star);
  EXPECT_FALSE(p.day_of_month_restricted);
  EXPECT_FALSE(p.day_of_week_restricted);
  EXPECT_TRUE(p.IsWildcard());
}

TEST(CronParse, ListsRangesAndSteps) {
  const CronPattern p = ParseCron("0,15,30-33 */6 1-10/3 */4 1-5");
  EXPECT_EQ(p.minutes, Bits<60>({0, 15, 30, 31, 32, 33}));
  EXPECT_EQ(p.hours, Bits<24>({0, 6, 12, 18}));
  EXPECT_EQ(p.days_of_month, Bits<32>({1, 4, 7, 10}));
  EXPECT_EQ(p.months, Bits<13>({1, 5, 9}));
  EXPECT_EQ(p.days_of_week, Bits<7>({1, 2, 3, 4, 5}));
}

TEST(CronParse, ValueSlashStepRunsToTheFieldMaximum) {
  EXPECT_EQ(ParseCron("5/20 * * * *").minutes, Bits<60>({5, 25, 45}));
  EXPECT_EQ(ParseCron("0 22/1 * * *").hours, Bits<24>({22, 23}));
  EXPECT_EQ(ParseCron("0 0 * 11/1 *").months, Bits<13>({11, 12}));
  EXPECT_EQ(ParseCron("0 0 * * 1/2").days_of_week, Bits<7>({1, 3, 5}));
}

TEST(CronParse, StepLargerThanRangeKeepsOnlyTheStart) {
  EXPECT_EQ(ParseCron("*/60 * * * *").minutes, Bits<60>({0}));
  EXPECT_EQ(ParseCron("10-20/30 * * * *").minutes, Bits<60>({10}));
}

TEST(CronParse, MonthNamesAreCaseInsensitive) {
  EXPECT_EQ(ParseCron("0 0 1 jan-Mar,DEC *").months, Bits<13>({1, 2, 3, 12}));
  EXPECT_EQ(ParseCron("0 0 1 JAN-DEC/6 *").months, Bits<13>({1, 7}));
}

TEST(CronParse, WeekdayNamesAndBothSundays) {
  EXPECT_EQ(ParseCron("0 0 * * mon-FRI").days_of_week, Bits<7>({1, 2, 3, 4, 5}));
  EXPECT_EQ(ParseCron("0 0 * * 0").days_of_week, Bits<7>({0}));
  EXPECT_EQ(ParseCron("0 0 * * 7").days_of_week, Bits<7>({0}));
  EXPECT_EQ(ParseCron("0 0 * * Sun").days_of_week, Bits<7>({0}));
  EXPECT_EQ(ParseCron("0 0 * * 5-7").days_of_week, Bits<7>({0, 5, 6}));
  EXPECT_EQ(ParseCron("0 0 * * FRI-7").days_of_week, Bits<7>({0, 5, 6}));
  EXPECT_EQ(ParseCron("0 0 * * 0-7").days_of_week, Range<7>(0, 6));
}

TEST(CronParse, StarInsideAListCounts) {
  const CronPattern p = ParseCron("*,5 3 * * *");
  EXPECT_EQ(p.minutes, Range<60>(0, 59));
  EXPECT_TRUE(p.minute_starts_with_star);
}

TEST(CronParse, BlanksAroundAndBetweenFieldsAreIgnored) {
  EXPECT_EQ(ParseCron("  5\t4   * *  * \t"), ParseCron("5 4 * * *"));
}

TEST(CronParse, WildcardClassFollowsMinuteAndHourFields) {
  EXPECT_TRUE(ParseCron("*/15 3 * * *").IsWildcard());
  EXPECT_TRUE(ParseCron("0 * * * *").IsWildcard());
  EXPECT_TRUE(ParseCron("0 */2 * * *").IsWildcard());
  EXPECT_FALSE(ParseCron("0-59 0-23 * * *").IsWildcard());
  EXPECT_FALSE(ParseCron("30 2 * * *").IsWildcard());
  EXPECT_FALSE(ParseCron("0 0 */2 * *").IsWildcard());
}

TEST(CronParse, DayFieldsRestrictedUnlessTheyStartWithStar) {
  const CronPattern both = ParseCron("0 0 1 * MON");
  EXPECT_TRUE(both.day_of_month_restricted);
  EXPECT_TRUE(both.day_of_week_restricted);
  EXPECT_FALSE(ParseCron("0 0 */2 * 1").day_of_month_restricted);
  EXPECT_TRUE(ParseCron("0 0 */2 * 1").day_of_week_restricted);
  EXPECT_TRUE(ParseCron("0 0 1-31 * *").day_of_month_restricted);
}

TEST(CronParse, MacrosExpandLikeCronie) {
  EXPECT_EQ(ParseCron("@hourly"), ParseCron("0 * * * *"));
  EXPECT_EQ(ParseCron("@daily"), ParseCron("0 0 * * *"));
  EXPECT_EQ(ParseCron("@midnight"), ParseCron("0 0 * * *"));
  EXPECT_EQ(ParseCron("@weekly"), ParseCron("0 0 * * 0"));
  EXPECT_EQ(ParseCron("@monthly"), ParseCron("0 0 1 * *"));
  EXPECT_EQ(ParseCron("@yearly"), ParseCron("0 0 1 1 *"));
  EXPECT_EQ(ParseCron("@annually"), ParseCron("0 0 1 1 *"));
  EXPECT_EQ(ParseCron("  @Daily "), ParseCron("0 0 * * *"));
  EXPECT_TRUE(ParseCron("@hourly").IsWildcard());
  EXPECT_FALSE(ParseCron("@daily").IsWildcard());
}

TEST(CronMatchesDay, BothDayFieldsRestrictedMatchEither) {
  const CronPattern p = ParseCron("0 0 1 * MON");
  EXPECT_TRUE(p.MatchesDay(Ymd(2026, 7, 1)));   // Wednesday the 1st
  EXPECT_TRUE(p.MatchesDay(Ymd(2026, 7, 6)));   // a Monday
  EXPECT_FALSE(p.MatchesDay(Ymd(2026, 7, 7)));  // a Tuesday
}

TEST(CronMatchesDay, OneDayFieldStarMeansOnlyTheOtherCounts) {
  const CronPattern dom = ParseCron("0 0 1 * *");
  EXPECT_TRUE(dom.MatchesDay(Ymd(2026, 7, 1)));
  EXPECT_FALSE(dom.MatchesDay(Ymd(2026, 7, 6)));
  const CronPattern dow = ParseCron("0 0 * * MON");
  EXPECT_FALSE(dow.MatchesDay(Ymd(2026, 7, 1)));
  EXPECT_TRUE(dow.MatchesDay(Ymd(2026, 7, 6)));
}

TEST(CronMatchesDay, SteppedStarDayFieldIsAndedAsInCronie) {
  const CronPattern p = ParseCron("0 0 */2 * MON");  // odd days that are Mondays
  EXPECT_TRUE(p.MatchesDay(Ymd(2026, 7, 13)));
  EXPECT_FALSE(p.MatchesDay(Ymd(2026, 7, 6)));
  EXPECT_FALSE(p.MatchesDay(Ymd(2026, 7, 1)));
}

TEST(CronMatchesDay, MonthFieldAlwaysApplies) {
  const CronPattern p = ParseCron("0 0 1 FEB MON");
  EXPECT_FALSE(p.MatchesDay(Ymd(2026, 7, 1)));
  EXPECT_TRUE(p.MatchesDay(Ymd(2026, 2, 1)));
  EXPECT_TRUE(p.MatchesDay(Ymd(2026, 2, 2)));
}

struct BadPattern {
  std::string text;
  std::string field;
  std::size_t position;
  std::string problem;
};

class CronErrorTest : public testing::TestWithParam<BadPattern> {};

TEST_P(CronErrorTest, NamesFieldAndPosition) {
  const BadPattern& bad = GetParam();
  try {
    (void)ParseCron(bad.text);
    FAIL() << "accepted \"" << bad.text << "\"";
  } catch (const CronError& e) {
    EXPECT_EQ(e.field(), bad.field) << e.what();
    EXPECT_EQ(e.position(), bad.position) << e.what();
    const std::string prefix = bad.field.empty() ? "cron: " : "cron: " + bad.field + " field: ";
    EXPECT_EQ(std::string(e.what()),
              prefix + bad.problem + " at position " + std::to_string(bad.position));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rejects, CronErrorTest,
    testing::Values(
        BadPattern{"0 24 * * *", "hour", 3, "value 24 out of range 0-23"},
        BadPattern{"60 * * * *", "minute", 1, "value 60 out of range 0-59"},
        BadPattern{"* * 0 * *", "day-of-month", 5, "value 0 out of range 1-31"},
        BadPattern{"* * 32 * *", "day-of-month", 5, "value 32 out of range 1-31"},
        BadPattern{"* * * 13 *", "month", 7, "value 13 out of range 1-12"},
        BadPattern{"* * * 0 *", "month", 7, "value 0 out of range 1-12"},
        BadPattern{"* * * * 8", "day-of-week", 9, "value 8 out of range 0-7"},
        BadPattern{"99999999999 * * * *", "minute", 1, "value 99999999999 out of range 0-59"},
        BadPattern{"1-70 * * * *", "minute", 3, "value 70 out of range 0-59"},
        BadPattern{"", "", 1, "pattern is empty"}, BadPattern{"   ", "", 4, "pattern is empty"},
        BadPattern{"* * * *", "day-of-week", 8, "missing (expected 5 fields, found 4)"},
        BadPattern{"5", "hour", 2, "missing (expected 5 fields, found 1)"},
        BadPattern{"* * * * * *", "", 11,
                   "expected 5 fields (minute hour day-of-month month day-of-week), found a 6th"},
        BadPattern{"1,,2 * * * *", "minute", 3, "empty list item"},
        BadPattern{",1 * * * *", "minute", 1, "empty list item"},
        BadPattern{"1, * * * *", "minute", 3, "empty list item"},
        BadPattern{"0 0 * 1,2, *", "month", 11, "empty list item"},
        BadPattern{"5-3 * * * *", "minute", 1, "range 5-3 is reversed"},
        BadPattern{"0 0 * * MON-SUN", "day-of-week", 9, "range MON-SUN is reversed"},
        BadPattern{"0 0 * DEC-JAN *", "month", 7, "range DEC-JAN is reversed"},
        BadPattern{"*/0 * * * *", "minute", 3, "step 0 out of range 1-60"},
        BadPattern{"0 0 1-10/0 * *", "day-of-month", 10, "step 0 out of range 1-31"},
        BadPattern{"0 */25 * * *", "hour", 5, "step 25 out of range 1-24"},
        BadPattern{"0 0 * * */8", "day-of-week", 11, "step 8 out of range 1-7"},
        BadPattern{"*/ * * * *", "minute", 3, "expected a step"},
        BadPattern{"*/x * * * *", "minute", 3, "unexpected character 'x'"},
        BadPattern{"5- * * * *", "minute", 3, "expected a value"},
        BadPattern{"-5 * * * *", "minute", 1, "expected a value"},
        BadPattern{"/5 * * * *", "minute", 1, "expected a value"},
        BadPattern{"*-5 * * * *", "minute", 2, "unexpected character '-'"},
        BadPattern{"1-2-3 * * * *", "minute", 4, "unexpected character '-'"},
        BadPattern{"1/2/3 * * * *", "minute", 4, "unexpected character '/'"},
        BadPattern{"a * * * *", "minute", 1, "unexpected character 'a'"},
        BadPattern{"0 0 JAN * *", "day-of-month", 5, "unexpected character 'J'"},
        BadPattern{"0 0 * * MOX", "day-of-week", 9, "unknown name \"MOX\""},
        BadPattern{"0 0 * JANUARY *", "month", 7, "unknown name \"JANUARY\""},
        BadPattern{"0 0 * * MON1", "day-of-week", 12, "unexpected character '1'"},
        BadPattern{"0 0 * * *x", "day-of-week", 10, "unexpected character 'x'"},
        BadPattern{"0 0 * * é", "day-of-week", 9, "unexpected character 'é'"},
        BadPattern{"0 0 * * \x01", "day-of-week", 9, "unexpected character byte 0x01"},
        BadPattern{"0 0 * * 1;", "day-of-week", 10, "unexpected character ';'"},
        BadPattern{"0 @daily * * *", "hour", 3, "unexpected character '@'"},
        BadPattern{"@fortnightly", "", 1, "unknown macro \"@fortnightly\""},
        BadPattern{"@daily 5", "", 8, "unexpected text after @daily"}));

TEST(CronError, IsAnInvalidArgument) {
  EXPECT_THROW((void)ParseCron("0 24 * * *"), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::schedule
