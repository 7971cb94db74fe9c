#include "net/http_client.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace chopar::net {
namespace {

using std::chrono::seconds;

// Wed, 28 Oct 2026 13:05:00 GMT.
const std::chrono::system_clock::time_point kNow =
    std::chrono::sys_days{std::chrono::year{2026} / 10 / 28} + std::chrono::hours(13) +
    std::chrono::minutes(5);

TEST(ParseRetryAfterTest, DeltaSecondsAreTheDelay) {
  EXPECT_EQ(ParseRetryAfter("120", kNow), seconds(120));
  EXPECT_EQ(ParseRetryAfter("0", kNow), seconds(0));
}

TEST(ParseRetryAfterTest, HttpDateCountsFromTheGivenNow) {
  EXPECT_EQ(ParseRetryAfter("Wed, 28 Oct 2026 13:06:30 GMT", kNow), seconds(90));
  EXPECT_EQ(ParseRetryAfter("Wed, 28 Oct 2026 13:06:30 GMT", kNow + seconds(60)), seconds(30));
}

TEST(ParseRetryAfterTest, HttpDateAlreadyPassedIsNoDelay) {
  EXPECT_EQ(ParseRetryAfter("Wed, 28 Oct 2026 13:04:00 GMT", kNow), seconds(0));
}

TEST(ParseRetryAfterTest, FarFutureValuesAreClampedToADayNotOverflowed) {
  EXPECT_EQ(ParseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", kNow), core::kLongestRetryAfter);
  EXPECT_EQ(ParseRetryAfter("99999999999999999999999", kNow), core::kLongestRetryAfter);
  EXPECT_EQ(ParseRetryAfter("0000000000120", kNow), seconds(120));
  EXPECT_EQ(ParseRetryAfter("Thu, 29 Oct 2026 13:05:00 GMT", kNow), std::chrono::hours(24));
}

TEST(ParseRetryAfterTest, EmptyOrUnparsableIsNone) {
  EXPECT_EQ(ParseRetryAfter("", kNow), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("soon", kNow), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-5", kNow), std::nullopt);
}

}  // namespace
}  // namespace chopar::net
