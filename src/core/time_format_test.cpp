#include "core/time_format.hpp"

#include <date/date.h>
#include <gtest/gtest.h>

#include <random>

namespace chopar::core {
namespace {

TEST(ParseRfc3339Test, ParsesUtcOffsetsAndFractions) {
  EXPECT_EQ(FormatRfc3339(*ParseRfc3339("2026-10-28T13:05:00Z")), "2026-10-28T13:05:00Z");
  EXPECT_EQ(FormatRfc3339(*ParseRfc3339("2026-10-28T18:05:00+05:00")), "2026-10-28T13:05:00Z");
  EXPECT_EQ(FormatRfc3339Micros(*ParseRfc3339("2026-10-28T13:05:00.25Z")),
            "2026-10-28T13:05:00.250000Z");
  EXPECT_EQ(ParseRfc3339("2026-02-30T00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("2026-10-28 13:05:00Z"), std::nullopt);
}

TEST(ParseRfc3339Test, TimesOutsideTheRepresentableRangeAreRefusedNotWrapped) {
  // A TimePoint counts nanoseconds in 64 bits: about 1677-09-21 to 2262-04-11.
  EXPECT_EQ(ParseRfc3339("9999-12-31T23:59:59Z"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("2262-04-12T00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("1677-09-21T00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("0000-01-01T00:00:00Z"), std::nullopt);
  EXPECT_EQ(FormatRfc3339(*ParseRfc3339("2262-04-11T00:00:00Z")), "2262-04-11T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(*ParseRfc3339("1677-09-22T00:00:00Z")), "1677-09-22T00:00:00Z");
}

TEST(ParseRfc3339Test, LongFractionsDoNotOverflow) {
  const auto t = ParseRfc3339("2026-10-28T13:05:00." + std::string(400, '9') + "Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatRfc3339Micros(*t), "2026-10-28T13:05:00.999999Z");
}

TEST(ParsePgTimestampTest, OutOfRangeIsAnErrorNotAWrappedTime) {
  EXPECT_EQ(FormatRfc3339(ParsePgTimestamp("2026-10-28 13:05:00.123456+00")),
            "2026-10-28T13:05:00Z");
  EXPECT_THROW((void)ParsePgTimestamp("9999-12-31 23:59:59+00"), std::runtime_error);
}

}  // namespace
}  // namespace chopar::core

namespace chopar::core {
namespace {

// The hand-written formatter says what date::format says, over times spread
// across TimePoint's whole range (before 1970 too) and day boundaries.
TEST(TimeFormatTest, FormatsAsDateFormatDoesAcrossTheRange) {
  std::mt19937_64 random(20261207);
  const auto lowest =
      std::chrono::floor<std::chrono::microseconds>(*ParseRfc3339("1677-09-22T00:00:00Z"));
  const auto highest =
      std::chrono::floor<std::chrono::microseconds>(*ParseRfc3339("2262-04-11T00:00:00Z"));
  std::uniform_int_distribution<std::int64_t> pick(lowest.time_since_epoch().count(),
                                                   highest.time_since_epoch().count());
  for (int i = 0; i < 20000; ++i) {
    std::chrono::sys_time<std::chrono::microseconds> t{std::chrono::microseconds(pick(random))};
    if (i % 4 == 0) t = std::chrono::floor<std::chrono::seconds>(t);
    if (i % 8 == 1) t = std::chrono::floor<std::chrono::days>(t) - std::chrono::microseconds(1);
    const TimePoint point = std::chrono::time_point_cast<TimePoint::duration>(t);
    const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
    ASSERT_EQ(FormatRfc3339(point), date::format("%FT%TZ", seconds));
    ASSERT_EQ(FormatRfc3339Micros(point),
              t == seconds ? date::format("%FT%TZ", seconds) : date::format("%FT%TZ", t));
  }
}

}  // namespace
}  // namespace chopar::core
