#include "core/quiet_hours.hpp"

#include <date/date.h>
#include <date/tz.h>
#include <gtest/gtest.h>

#include "core/time_format.hpp"

namespace chopar::core {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

TimeOfDay At(int h, int m) { return hours(h) + minutes(m); }

TimePoint Utc(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

TEST(QuietHoursTest, SeedExamplesAcrossMidnight) {
  const TimeOfDay start = At(22, 0), end = At(8, 0);
  EXPECT_TRUE(IsQuiet(At(23, 30), start, end));
  EXPECT_TRUE(IsQuiet(At(7, 59), start, end));
  EXPECT_FALSE(IsQuiet(At(8, 0), start, end));
  EXPECT_FALSE(IsQuiet(At(12, 0), start, end));
  EXPECT_TRUE(IsQuiet(At(22, 0), start, end)) << "start is inclusive";
  EXPECT_TRUE(IsQuiet(At(0, 0), start, end));
  EXPECT_FALSE(IsQuiet(At(21, 59), start, end));
}

TEST(QuietHoursTest, SeedExamplesWithinOneDay) {
  const TimeOfDay start = At(13, 0), end = At(14, 0);
  EXPECT_TRUE(IsQuiet(At(13, 30), start, end));
  EXPECT_FALSE(IsQuiet(At(14, 0), start, end));
  EXPECT_TRUE(IsQuiet(At(13, 0), start, end));
  EXPECT_FALSE(IsQuiet(At(12, 59), start, end));
  EXPECT_FALSE(IsQuiet(At(23, 30), start, end));
}

TEST(QuietHoursTest, EqualBoundsAreAnEmptyWindow) {
  EXPECT_FALSE(IsQuiet(At(9, 0), At(9, 0), At(9, 0)));
}

TEST(QuietHoursTest, ParsesPostgresTimeText) {
  EXPECT_EQ(ParseTimeOfDay("22:00:00"), At(22, 0));
  EXPECT_EQ(ParseTimeOfDay("07:59"), At(7, 59));
  EXPECT_EQ(ParseTimeOfDay("08:00:30.5"), At(8, 0) + std::chrono::seconds(30));
  EXPECT_EQ(ParseTimeOfDay("24:00"), std::nullopt);
  EXPECT_EQ(ParseTimeOfDay("8:00"), std::nullopt);
  EXPECT_EQ(ParseTimeOfDay("08-00"), std::nullopt);
  EXPECT_EQ(ParseTimeOfDay(""), std::nullopt);
}

TEST(QuietUntilTest, NotQuietGivesNothing) {
  // 12:00 in Tashkent (UTC+5) is 07:00Z.
  EXPECT_EQ(QuietUntil(Utc("2026-10-28T07:00:00Z"), "Asia/Tashkent", At(22, 0), At(8, 0)),
            std::nullopt);
}

TEST(QuietUntilTest, BeforeMidnightEndsNextMorningInTheUsersZone) {
  // 23:30 in Tashkent on the 28th → 08:00 on the 29th = 03:00Z.
  EXPECT_EQ(QuietUntil(Utc("2026-10-28T18:30:00Z"), "Asia/Tashkent", At(22, 0), At(8, 0)),
            Utc("2026-10-29T03:00:00Z"));
}

TEST(QuietUntilTest, AfterMidnightEndsThisMorning) {
  // 07:59 in Tashkent → 08:00 the same day.
  EXPECT_EQ(QuietUntil(Utc("2026-10-29T02:59:00Z"), "Asia/Tashkent", At(22, 0), At(8, 0)),
            Utc("2026-10-29T03:00:00Z"));
}

TEST(QuietUntilTest, SameDayWindow) {
  EXPECT_EQ(QuietUntil(Utc("2026-10-28T13:30:00Z"), "UTC", At(13, 0), At(14, 0)),
            Utc("2026-10-28T14:00:00Z"));
  EXPECT_EQ(QuietUntil(Utc("2026-10-28T14:00:00Z"), "UTC", At(13, 0), At(14, 0)), std::nullopt);
}

TEST(QuietUntilTest, EndInsideSpringForwardGapIsTheFirstInstantAfterIt) {
  // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST (01:00Z). A window
  // ending at 02:30 ends at the jump.
  EXPECT_EQ(QuietUntil(Utc("2026-03-28T23:30:00Z"), "Europe/Berlin", At(22, 0), At(2, 30)),
            Utc("2026-03-29T01:00:00Z"));
}

TEST(QuietUntilTest, EndAcrossSpringForwardKeepsWallTime) {
  // 23:00 CET on the 28th, window to 08:00: 08:00 CEST is 06:00Z.
  EXPECT_EQ(QuietUntil(Utc("2026-03-28T22:00:00Z"), "Europe/Berlin", At(22, 0), At(8, 0)),
            Utc("2026-03-29T06:00:00Z"));
}

TEST(QuietUntilTest, RepeatedEndTimeEndsAtItsFirstPassStillAhead) {
  // Berlin, 2026-10-25: 03:00 CEST falls back to 02:00 CET (01:00Z), so
  // 02:30 happens at 00:30Z and again at 01:30Z.
  const TimeOfDay start = At(22, 0), end = At(2, 30);
  EXPECT_EQ(QuietUntil(Utc("2026-10-24T23:00:00Z"), "Europe/Berlin", start, end),
            Utc("2026-10-25T00:30:00Z"));
  // 02:15 on the second pass (01:15Z): the first 02:30 is behind, the second ahead.
  EXPECT_EQ(QuietUntil(Utc("2026-10-25T01:15:00Z"), "Europe/Berlin", start, end),
            Utc("2026-10-25T01:30:00Z"));
}

TEST(QuietUntilTest, UnknownZoneFallsBackToUtc) {
  EXPECT_EQ(QuietUntil(Utc("2026-10-28T23:30:00Z"), "Nowhere/Atlantis", At(22, 0), At(8, 0)),
            Utc("2026-10-29T08:00:00Z"));
}

}  // namespace
}  // namespace chopar::core

namespace chopar::core {
namespace {

using namespace std::chrono_literals;

TEST(NextWallTime, TodayWhenAheadElseTomorrowAcrossDst) {
  const auto at = [](const char* text) { return ParseRfc3339(text).value(); };
  // 13:00 in Tashkent (UTC+5): 18:00 is today, 09:00 tomorrow.
  EXPECT_EQ(FormatRfc3339(NextWallTime(at("2026-12-07T08:00:00Z"), "Asia/Tashkent", 18h)),
            "2026-12-07T13:00:00Z");
  EXPECT_EQ(FormatRfc3339(NextWallTime(at("2026-12-07T08:00:00Z"), "Asia/Tashkent", 9h)),
            "2026-12-08T04:00:00Z");
  // New York springs forward on 2026-03-08 at 02:00: 02:30 does not exist
  // that day, the first instant after the gap (03:00 EDT = 07:00Z) is it.
  EXPECT_EQ(FormatRfc3339(NextWallTime(at("2026-03-08T05:00:00Z"), "America/New_York", 2h + 30min)),
            "2026-03-08T07:00:00Z");
  // And 09:00 keeps its wall time across the change: 13:00Z after, 14:00Z before.
  EXPECT_EQ(FormatRfc3339(NextWallTime(at("2026-03-07T15:00:00Z"), "America/New_York", 9h)),
            "2026-03-08T13:00:00Z");
}

}  // namespace
}  // namespace chopar::core
