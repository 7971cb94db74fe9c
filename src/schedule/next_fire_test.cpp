#include "schedule/next_fire.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/time_format.hpp"
#include "schedule/cron.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

using testing::ElementsAre;
using testing::IsEmpty;

core::TimePoint At(std::string_view rfc3339) {
  const auto t = core::ParseRfc3339(rfc3339);
  if (!t) throw std::invalid_argument("bad time in test: " + std::string(rfc3339));
  return *t;
}

// The next `count` firings as RFC 3339 UTC strings.
std::vector<std::string> Fires(std::string_view cron, std::string_view zone, std::string_view after,
                               int count) {
  std::vector<std::string> out;
  for (const core::TimePoint t :
       NextFireTimes(ParseCron(cron), FindTimeZone(zone), At(after), count)) {
    out.push_back(core::FormatRfc3339(t));
  }
  return out;
}

TEST(NextFire, PreviewExampleFromApiDoc) {
  EXPECT_THAT(Fires("30 2 * * *", "Europe/Berlin", "2027-03-27T00:00:00Z", 5),
              ElementsAre("2027-03-27T01:30:00Z", "2027-03-28T01:00:00Z", "2027-03-29T00:30:00Z",
                          "2027-03-30T00:30:00Z", "2027-03-31T00:30:00Z"));
}

TEST(NextFire, BerlinEveningReminderMovesWithDst) {
  EXPECT_THAT(Fires("5 18 * * *", "Europe/Berlin", "2026-10-23T12:00:00Z", 4),
              ElementsAre("2026-10-23T16:05:00Z", "2026-10-24T16:05:00Z", "2026-10-25T17:05:00Z",
                          "2026-10-26T17:05:00Z"));
}

TEST(NextFire, TashkentReminderStaysAtTheSameUtcTime) {
  EXPECT_THAT(Fires("5 18 * * *", "Asia/Tashkent", "2026-10-23T12:00:00Z", 4),
              ElementsAre("2026-10-23T13:05:00Z", "2026-10-24T13:05:00Z", "2026-10-25T13:05:00Z",
                          "2026-10-26T13:05:00Z"));
  EXPECT_THAT(Fires("5 18 * * *", "Asia/Tashkent", "2026-10-15T00:00:00Z", 1),
              ElementsAre("2026-10-15T13:05:00Z"));
}

TEST(NextFire, FixedTimeInRepeatedHourFiresOnFirstPassOnly) {
  EXPECT_THAT(Fires("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 3),
              ElementsAre("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z"));
}

TEST(NextFire, FixedTimeAskedDuringSecondPassWaitsForTomorrow) {
  // 00:45Z is 02:45 CEST, the first pass; 02:30 CET (01:30Z) is its second pass.
  EXPECT_THAT(Fires("30 2 * * *", "Europe/Berlin", "2026-10-25T00:45:00Z", 1),
              ElementsAre("2026-10-26T01:30:00Z"));
  EXPECT_THAT(Fires("30 2 * * *", "Europe/Berlin", "2026-10-25T01:15:00Z", 1),
              ElementsAre("2026-10-26T01:30:00Z"));
}

TEST(NextFire, FixedTimesInGapFireOnceWhenTheGapEnds) {
  EXPECT_THAT(Fires("0,30 2 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", 3),
              ElementsAre("2027-03-28T01:00:00Z", "2027-03-29T00:00:00Z", "2027-03-29T00:30:00Z"));
}

TEST(NextFire, GapFiringDoesNotDuplicateAnInstantThatMatchesAnyway) {
  EXPECT_THAT(Fires("0 2,3 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", 3),
              ElementsAre("2027-03-28T01:00:00Z", "2027-03-29T00:00:00Z", "2027-03-29T01:00:00Z"));
}

TEST(NextFire, GapFiringPrecedesLaterTimesOfTheSameDay) {
  EXPECT_THAT(Fires("15 2,3 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", 3),
              ElementsAre("2027-03-28T01:00:00Z", "2027-03-28T01:15:00Z", "2027-03-29T00:15:00Z"));
}

TEST(NextFire, WildcardPatternSkipsWallTimesInGap) {
  EXPECT_THAT(Fires("*/15 2 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", 2),
              ElementsAre("2027-03-29T00:00:00Z", "2027-03-29T00:15:00Z"));
  // The same hour as a fixed-time pattern is shifted to the end of the gap instead.
  EXPECT_THAT(Fires("0 2 * * *", "Europe/Berlin", "2027-03-27T12:00:00Z", 1),
              ElementsAre("2027-03-28T01:00:00Z"));
}

TEST(NextFire, WildcardPatternFiresBothPassesOfRepeatedHour) {
  EXPECT_THAT(Fires("*/30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 5),
              ElementsAre("2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:00:00Z",
                          "2026-10-25T01:30:00Z", "2026-10-26T01:00:00Z"));
}

TEST(NextFire, HourlyStaysHourlyInRealTimeAcrossDst) {
  EXPECT_THAT(Fires("@hourly", "Europe/Berlin", "2026-10-24T23:00:00Z", 4),
              ElementsAre("2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z",
                          "2026-10-25T03:00:00Z"));
  EXPECT_THAT(Fires("0 * * * *", "Europe/Berlin", "2027-03-27T23:30:00Z", 3),
              ElementsAre("2027-03-28T00:00:00Z", "2027-03-28T01:00:00Z", "2027-03-28T02:00:00Z"));
}

TEST(NextFire, LordHoweHalfHourGapShiftsFixedTime) {
  // 2026-10-04 02:00 +10:30 jumps to 02:30 +11 at 2026-10-03T15:30Z.
  EXPECT_THAT(Fires("15 2 * * *", "Australia/Lord_Howe", "2026-10-03T00:00:00Z", 2),
              ElementsAre("2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"));
}

TEST(NextFire, LordHoweHalfHourRepeat) {
  // 2027-04-04 02:00 +11 falls back to 01:30 +10:30 at 2027-04-03T15:00Z.
  EXPECT_THAT(Fires("45 1 * * *", "Australia/Lord_Howe", "2027-04-03T12:00:00Z", 2),
              ElementsAre("2027-04-03T14:45:00Z", "2027-04-04T15:15:00Z"));
  EXPECT_THAT(Fires("*/15 1 * * *", "Australia/Lord_Howe", "2027-04-03T14:00:00Z", 5),
              ElementsAre("2027-04-03T14:15:00Z", "2027-04-03T14:30:00Z", "2027-04-03T14:45:00Z",
                          "2027-04-03T15:00:00Z", "2027-04-03T15:15:00Z"));
}

TEST(NextFire, ChathamQuarterHourOffsets) {
  // 2026-09-27 02:45 +12:45 jumps to 03:45 +13:45 at 2026-09-26T14:00Z.
  EXPECT_THAT(Fires("0 3 * * *", "Pacific/Chatham", "2026-09-25T00:00:00Z", 3),
              ElementsAre("2026-09-25T14:15:00Z", "2026-09-26T14:00:00Z", "2026-09-27T13:15:00Z"));
}

TEST(NextFire, OddOffsetsWithoutAndWithDst) {
  EXPECT_THAT(Fires("0 9 * * *", "Asia/Kathmandu", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-07-01T03:15:00Z"));
  EXPECT_THAT(Fires("0 9 * * *", "America/St_Johns", "2026-01-15T00:00:00Z", 1),
              ElementsAre("2026-01-15T12:30:00Z"));
  EXPECT_THAT(Fires("0 9 * * *", "America/St_Johns", "2026-07-15T00:00:00Z", 1),
              ElementsAre("2026-07-15T11:30:00Z"));
}

TEST(NextFire, MissingMidnightFiresWhenTheDayBegins) {
  // Santiago, Havana and Cairo move their clocks at midnight: 00:00 does not exist.
  EXPECT_THAT(Fires("0 0 * * *", "America/Santiago", "2026-09-05T12:00:00Z", 2),
              ElementsAre("2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z"));
  EXPECT_THAT(Fires("@daily", "America/Havana", "2026-03-07T12:00:00Z", 2),
              ElementsAre("2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"));
  EXPECT_THAT(Fires("0 0 * * *", "Africa/Cairo", "2026-04-23T12:00:00Z", 2),
              ElementsAre("2026-04-23T22:00:00Z", "2026-04-24T21:00:00Z"));
  EXPECT_THAT(Fires("*/30 0 * * *", "America/Havana", "2026-03-07T12:00:00Z", 1),
              ElementsAre("2026-03-09T04:00:00Z"));
}

TEST(NextFire, RepeatedHourBeforeMidnight) {
  // Santiago: 2026-04-05 00:00 -03 falls back to 2026-04-04 23:00 -04.
  EXPECT_THAT(Fires("30 23 * * *", "America/Santiago", "2026-04-04T12:00:00Z", 2),
              ElementsAre("2026-04-05T02:30:00Z", "2026-04-06T03:30:00Z"));
  EXPECT_THAT(Fires("0 0 * * *", "America/Santiago", "2026-04-04T12:00:00Z", 2),
              ElementsAre("2026-04-05T04:00:00Z", "2026-04-06T04:00:00Z"));
}

TEST(NextFire, DublinNegativeDstIsJustAnotherOffsetChange) {
  EXPECT_THAT(Fires("30 1 * * *", "Europe/Dublin", "2026-03-28T12:00:00Z", 2),
              ElementsAre("2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"));
  EXPECT_THAT(Fires("30 1 * * *", "Europe/Dublin", "2026-10-24T12:00:00Z", 2),
              ElementsAre("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"));
}

TEST(NextFire, NewYorkBothTransitions) {
  EXPECT_THAT(Fires("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 2),
              ElementsAre("2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"));
  EXPECT_THAT(Fires("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2),
              ElementsAre("2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"));
}

TEST(NextFire, LeapDayFindsTheNextLeapYear) {
  EXPECT_THAT(Fires("0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", 3),
              ElementsAre("2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z"));
  // 2100 is not a leap year.
  EXPECT_THAT(Fires("0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z", 1),
              ElementsAre("2104-02-29T00:00:00Z"));
}

TEST(NextFire, PatternThatNeverFiresGivesNothing) {
  EXPECT_THAT(Fires("0 0 30 2 *", "Europe/Berlin", "2026-01-01T00:00:00Z", 3), IsEmpty());
  EXPECT_THAT(Fires("0 0 31 4,6,9,11 *", "UTC", "2026-01-01T00:00:00Z", 3), IsEmpty());
  EXPECT_FALSE(
      NextFireTime(ParseCron("0 0 30 2 *"), FindTimeZone("UTC"), At("2026-01-01T00:00:00Z"))
          .has_value());
}

TEST(NextFire, DayOfMonthOrDayOfWeekWhenBothRestricted) {
  EXPECT_THAT(Fires("0 0 1 * MON", "UTC", "2026-07-01T00:00:00Z", 6),
              ElementsAre("2026-07-06T00:00:00Z", "2026-07-13T00:00:00Z", "2026-07-20T00:00:00Z",
                          "2026-07-27T00:00:00Z", "2026-08-01T00:00:00Z", "2026-08-03T00:00:00Z"));
}

TEST(NextFire, DayIsMatchedOnTheLocalDate) {
  // Monday 00:30 in Tashkent is still Sunday in UTC.
  EXPECT_THAT(Fires("30 0 * * MON", "Asia/Tashkent", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-07-05T19:30:00Z"));
}

TEST(NextFire, Macros) {
  EXPECT_THAT(Fires("@hourly", "UTC", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-07-01T01:00:00Z"));
  EXPECT_THAT(Fires("@daily", "Asia/Tashkent", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-07-01T19:00:00Z"));
  EXPECT_THAT(Fires("@midnight", "UTC", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-07-02T00:00:00Z"));
  EXPECT_THAT(Fires("@weekly", "UTC", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-07-05T00:00:00Z"));
  EXPECT_THAT(Fires("@monthly", "UTC", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-08-01T00:00:00Z"));
  EXPECT_THAT(Fires("@yearly", "UTC", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2027-01-01T00:00:00Z"));
  EXPECT_THAT(Fires("@annually", "Europe/Berlin", "2026-07-01T00:00:00Z", 1),
              ElementsAre("2026-12-31T23:00:00Z"));
}

TEST(NextFire, ResultsAreStrictlyAfterTheGivenInstant) {
  const CronPattern p = ParseCron("0 12 * * *");
  const date::time_zone* utc = FindTimeZone("UTC");
  const core::TimePoint noon = At("2026-07-01T12:00:00Z");
  EXPECT_EQ(NextFireTime(p, utc, noon), At("2026-07-02T12:00:00Z"));
  EXPECT_EQ(NextFireTime(p, utc, noon - std::chrono::nanoseconds(1)), noon);
  EXPECT_EQ(NextFireTime(p, utc, noon + std::chrono::nanoseconds(1)), At("2026-07-02T12:00:00Z"));
  EXPECT_EQ(NextFireTime(p, utc, noon - std::chrono::seconds(59)), noon);
}

TEST(NextFire, NonPositiveCountGivesNothing) {
  EXPECT_THAT(Fires("* * * * *", "UTC", "2026-07-01T00:00:00Z", 0), IsEmpty());
  EXPECT_THAT(Fires("* * * * *", "UTC", "2026-07-01T00:00:00Z", -3), IsEmpty());
}

TEST(NextFire, ThousandMinuteFiringsAreConsecutive) {
  const auto fires = NextFireTimes(ParseCron("* * * * *"), FindTimeZone("Europe/Berlin"),
                                   At("2026-10-25T00:00:00Z"), 1000);
  ASSERT_EQ(fires.size(), 1000u);
  for (std::size_t i = 0; i < fires.size(); ++i) {
    EXPECT_EQ(fires[i], At("2026-10-25T00:00:00Z") + std::chrono::minutes(i + 1));
  }
}

TEST(NextFire, StopsAtTheEndOfTheRepresentableRange) {
  EXPECT_THAT(Fires("0 0 1 1 *", "UTC", "2261-06-01T00:00:00Z", 5),
              ElementsAre("2262-01-01T00:00:00Z"));
}

TEST(NextFire, ConcurrentCallsAgree) {
  const CronPattern p = ParseCron("*/7 1-3 * * *");
  const core::TimePoint after = At("2026-10-24T00:00:00Z");
  const std::vector<std::string> zones{"Asia/Tokyo", "Europe/Paris", "America/Chicago",
                                       "Australia/Adelaide"};
  // Load the tz database here first: its one-time load inside the (not
  // instrumented) libdate-tz shows up under TSan as a race on its guard.
  // What this test checks is concurrent use, including zones' first use.
  (void)FindTimeZone("UTC");
  std::vector<std::vector<core::TimePoint>> results(zones.size() * 2);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = NextFireTimes(p, FindTimeZone(zones[i % zones.size()]), after, 200);
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < zones.size(); ++i) {
    EXPECT_EQ(results[i], results[i + zones.size()]) << zones[i];
    EXPECT_EQ(results[i].size(), 200u);
  }
}

TEST(FindTimeZone, KnownNamesAndLinks) {
  EXPECT_EQ(FindTimeZone("Europe/Berlin")->name(), "Europe/Berlin");
  EXPECT_NE(FindTimeZone("UTC"), nullptr);
  EXPECT_NE(FindTimeZone("US/Eastern"), nullptr);
}

TEST(FindTimeZone, UnknownNameThrowsNamingIt) {
  try {
    (void)FindTimeZone("Mars/Olympus");
    FAIL();
  } catch (const UnknownTimeZoneError& e) {
    EXPECT_STREQ(e.what(), "unknown time zone \"Mars/Olympus\"");
    EXPECT_EQ(e.name(), "Mars/Olympus");
  }
  EXPECT_THROW((void)FindTimeZone(""), UnknownTimeZoneError);
  EXPECT_THROW((void)FindTimeZone("europe/berlin"), UnknownTimeZoneError);
  EXPECT_THROW((void)FindTimeZone("Europe"), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::schedule
