#include "core/time_format.hpp"

#include <gtest/gtest.h>

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
