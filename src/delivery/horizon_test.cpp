#include "delivery/horizon.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace chopar::delivery {
namespace {

TEST(ActiveHorizonTest, StartsAtMinusInfinityWhichLeavesNothingOut) {
  ActiveHorizon horizon;
  EXPECT_EQ(horizon.Current(), ActiveHorizon::kMinusInfinity);
  EXPECT_EQ(ActiveHorizon::Sql(horizon.Current()), "-infinity");
}

TEST(ActiveHorizonTest, PostgresTextRoundTripsThroughTheParameter) {
  const auto micros = ActiveHorizon::Parse("2026-11-30 00:00:00.25+00");
  EXPECT_EQ(ActiveHorizon::Sql(micros), "2026-11-30T00:00:00.250000Z");
  EXPECT_EQ(ActiveHorizon::Parse("-infinity"), ActiveHorizon::kMinusInfinity);
  EXPECT_THROW(ActiveHorizon::Parse("infinity"), std::runtime_error);
}

TEST(ActiveHorizonTest, LearnKeepsTheNewestReadAndSaysWhenItIsLowerThanTheBound) {
  ActiveHorizon horizon;
  EXPECT_FALSE(horizon.Learn(horizon.Current(), "2026-11-30 00:00:00+00"));
  const auto advanced = horizon.Current();
  EXPECT_EQ(advanced, ActiveHorizon::Parse("2026-11-30 00:00:00+00"));

  EXPECT_FALSE(horizon.Learn(advanced, "2026-11-30 00:00:00+00")) << "the same: nothing missed";
  EXPECT_TRUE(horizon.Learn(advanced, "2026-11-02 10:00:00+00")) << "a retry lowered it";
  EXPECT_EQ(horizon.Current(), ActiveHorizon::Parse("2026-11-02 10:00:00+00"));
  EXPECT_TRUE(horizon.Learn(advanced, "-infinity"));
  EXPECT_EQ(horizon.Current(), ActiveHorizon::kMinusInfinity);
}

}  // namespace
}  // namespace chopar::delivery
