#include "schedule/catchup.hpp"

#include <gtest/gtest.h>

#include "core/time_format.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

core::TimePoint At(const char* rfc3339) { return *core::ParseRfc3339(rfc3339); }

CatchupRule Rule(CatchupPolicy policy, seconds window = kDefaultCatchupWindow) {
  return {policy, window};
}

TEST(CatchupListTest, OnTimeOccurrenceFiresUnderEveryPolicy) {
  const std::vector<core::TimePoint> due = {At("2026-10-20T13:05:00Z")};
  const auto next = At("2026-10-21T13:05:00Z");
  const auto now = At("2026-10-20T13:05:00.200Z");
  for (CatchupPolicy policy : {CatchupPolicy::kLatest, CatchupPolicy::kAll, CatchupPolicy::kNone}) {
    const CatchupDecision d = DecideCatchup(due, next, now, Rule(policy));
    EXPECT_EQ(d.fire, due) << CatchupPolicyName(policy);
    EXPECT_EQ(d.skipped, 0);
    EXPECT_EQ(d.newest_skipped, std::nullopt);
    EXPECT_EQ(d.next_fire_at, next);
  }
}

TEST(CatchupListTest, LatestFiresOnlyTheNewestOfTwoMissed) {
  const std::vector<core::TimePoint> due = {At("2026-10-20T09:00:00Z"), At("2026-10-21T09:00:00Z")};
  const CatchupDecision d =
      DecideCatchup(due, At("2026-10-22T09:00:00Z"), At("2026-10-21T10:00:00Z"),
                    Rule(CatchupPolicy::kLatest, hours(48)));
  EXPECT_EQ(d.fire, std::vector<core::TimePoint>{At("2026-10-21T09:00:00Z")});
  EXPECT_EQ(d.skipped, 1);
  EXPECT_EQ(d.newest_skipped, At("2026-10-20T09:00:00Z"));
}

TEST(CatchupListTest, AllFiresEveryMissedOccurrenceInsideTheWindow) {
  const std::vector<core::TimePoint> due = {At("2026-10-20T09:00:00Z"), At("2026-10-21T09:00:00Z")};
  const auto now = At("2026-10-21T10:00:00Z");
  const CatchupDecision both =
      DecideCatchup(due, std::nullopt, now, Rule(CatchupPolicy::kAll, hours(48)));
  EXPECT_EQ(both.fire, due);
  EXPECT_EQ(both.skipped, 0);
  // A one-day window leaves the first one (25 h old) out.
  const CatchupDecision one =
      DecideCatchup(due, std::nullopt, now, Rule(CatchupPolicy::kAll, hours(24)));
  EXPECT_EQ(one.fire, std::vector<core::TimePoint>{due[1]});
  EXPECT_EQ(one.skipped, 1);
  EXPECT_EQ(one.newest_skipped, due[0]);
}

TEST(CatchupListTest, WindowShorterThanTheDowntimeFiresNothingAndCountsEverything) {
  const std::vector<core::TimePoint> due = {At("2026-10-20T09:00:00Z"), At("2026-10-21T09:00:00Z")};
  for (CatchupPolicy policy : {CatchupPolicy::kLatest, CatchupPolicy::kAll, CatchupPolicy::kNone}) {
    const CatchupDecision d = DecideCatchup(due, At("2026-10-22T09:00:00Z"),
                                            At("2026-10-21T10:00:00Z"), Rule(policy, minutes(30)));
    EXPECT_TRUE(d.fire.empty()) << CatchupPolicyName(policy);
    EXPECT_EQ(d.skipped, 2);
    EXPECT_EQ(d.newest_skipped, due[1]);
    EXPECT_EQ(d.next_fire_at, At("2026-10-22T09:00:00Z"));
  }
}

TEST(CatchupListTest, WindowBoundaryIsInclusive) {
  const std::vector<core::TimePoint> due = {At("2026-10-21T09:00:00Z")};
  const CatchupRule rule = Rule(CatchupPolicy::kLatest, seconds(3600));
  EXPECT_EQ(DecideCatchup(due, std::nullopt, At("2026-10-21T10:00:00Z"), rule).fire.size(), 1u);
  EXPECT_EQ(DecideCatchup(due, std::nullopt, At("2026-10-21T10:00:00.000001Z"), rule).skipped, 1);
}

TEST(CatchupListTest, NoneFiresWithinTheGraceAndSkipsAnythingLater) {
  const std::vector<core::TimePoint> due = {At("2026-10-21T09:00:00Z")};
  const CatchupRule rule = Rule(CatchupPolicy::kNone, hours(24));
  EXPECT_EQ(DecideCatchup(due, std::nullopt, At("2026-10-21T09:00:00Z") + kOnTimeGrace, rule).fire,
            due);
  const CatchupDecision late = DecideCatchup(
      due, std::nullopt, At("2026-10-21T09:00:00Z") + kOnTimeGrace + seconds(1), rule);
  EXPECT_TRUE(late.fire.empty());
  EXPECT_EQ(late.skipped, 1);
  // A window shorter than the grace is the tighter bound.
  const CatchupDecision tight = DecideCatchup(due, std::nullopt, At("2026-10-21T09:00:30Z"),
                                              Rule(CatchupPolicy::kNone, seconds(10)));
  EXPECT_TRUE(tight.fire.empty());
}

TEST(CatchupListTest, AllFiresAtMostTheNewestMaxFires) {
  std::vector<core::TimePoint> due;
  const auto start = At("2026-10-20T00:00:00Z");
  for (std::size_t i = 0; i < kMaxFiresPerDecision + 5; ++i) due.push_back(start + minutes(i));
  const CatchupDecision d =
      DecideCatchup(due, std::nullopt, due.back(), Rule(CatchupPolicy::kAll, hours(48)));
  ASSERT_EQ(d.fire.size(), kMaxFiresPerDecision);
  EXPECT_EQ(d.fire.front(), due[5]);
  EXPECT_EQ(d.fire.back(), due.back());
  EXPECT_EQ(d.skipped, 5);
  EXPECT_EQ(d.newest_skipped, due[4]);
}

TEST(CatchupListTest, NothingDueGivesNothing) {
  const CatchupDecision d = DecideCatchup({}, At("2026-10-22T09:00:00Z"),
                                          At("2026-10-21T10:00:00Z"), Rule(CatchupPolicy::kAll));
  EXPECT_TRUE(d.fire.empty());
  EXPECT_EQ(d.skipped, 0);
  EXPECT_EQ(d.next_fire_at, At("2026-10-22T09:00:00Z"));
}

class CatchupPatternTest : public ::testing::Test {
 protected:
  const date::time_zone* berlin_ = FindTimeZone("Europe/Berlin");
  const date::time_zone* utc_ = FindTimeZone("UTC");
};

TEST_F(CatchupPatternTest, WalksThePatternFromTheStoredInstant) {
  // Berlin 18:05 across the end of summer time: 16:05Z, then 17:05Z.
  const CronPattern pattern = ParseCron("5 18 * * *");
  const CatchupDecision d =
      DecideCatchup(pattern, berlin_, At("2026-10-24T16:05:00Z"), At("2026-10-26T12:00:00Z"),
                    Rule(CatchupPolicy::kAll, hours(72)));
  EXPECT_EQ(d.fire,
            (std::vector<core::TimePoint>{At("2026-10-24T16:05:00Z"), At("2026-10-25T17:05:00Z")}));
  EXPECT_EQ(d.next_fire_at, At("2026-10-26T17:05:00Z"));
  EXPECT_EQ(d.skipped, 0);
}

TEST_F(CatchupPatternTest, NotYetDueKeepsTheStoredInstant) {
  const CatchupDecision d =
      DecideCatchup(ParseCron("5 18 * * *"), berlin_, At("2026-10-24T16:05:00Z"),
                    At("2026-10-24T16:04:59Z"), Rule(CatchupPolicy::kLatest));
  EXPECT_TRUE(d.fire.empty());
  EXPECT_EQ(d.skipped, 0);
  EXPECT_EQ(d.next_fire_at, At("2026-10-24T16:05:00Z"));
}

TEST_F(CatchupPatternTest, StoredInstantCountsEvenWhenTheZoneNoLongerMatchesIt) {
  // Computed in another zone before the user moved; it still fires once.
  const CatchupDecision d = DecideCatchup(ParseCron("5 18 * * *"), utc_, At("2026-10-24T13:05:00Z"),
                                          At("2026-10-24T13:05:01Z"), Rule(CatchupPolicy::kLatest));
  EXPECT_EQ(d.fire, std::vector<core::TimePoint>{At("2026-10-24T13:05:00Z")});
  EXPECT_EQ(d.next_fire_at, At("2026-10-24T18:05:00Z"));
}

TEST_F(CatchupPatternTest, MinutelyScheduleDownForThreeDaysCountsEveryMissedMinute) {
  const CronPattern pattern = ParseCron("* * * * *");
  const auto first = At("2026-10-20T00:00:00Z");
  const auto now = first + hours(72);  // occurrences first .. now: 4321
  const CatchupDecision latest =
      DecideCatchup(pattern, utc_, first, now, Rule(CatchupPolicy::kLatest, hours(1)));
  EXPECT_EQ(latest.fire, std::vector<core::TimePoint>{now});
  EXPECT_EQ(latest.skipped, 4320);
  EXPECT_EQ(latest.newest_skipped, now - minutes(1));
  EXPECT_EQ(latest.next_fire_at, now + minutes(1));

  const CatchupDecision all =
      DecideCatchup(pattern, utc_, first, now, Rule(CatchupPolicy::kAll, hours(1)));
  ASSERT_EQ(all.fire.size(), 61u);  // now - 60 min .. now
  EXPECT_EQ(all.fire.front(), now - hours(1));
  EXPECT_EQ(all.skipped, 4321 - 61);
  EXPECT_EQ(all.newest_skipped, now - minutes(61));
}

TEST_F(CatchupPatternTest, AllWithAWideWindowKeepsOnlyTheNewestMaxFires) {
  const CronPattern pattern = ParseCron("* * * * *");
  const auto first = At("2026-10-20T00:00:00Z");
  const auto now = first + hours(72);
  const CatchupDecision d =
      DecideCatchup(pattern, utc_, first, now, Rule(CatchupPolicy::kAll, hours(96)));
  ASSERT_EQ(d.fire.size(), kMaxFiresPerDecision);
  EXPECT_EQ(d.fire.back(), now);
  EXPECT_EQ(d.fire.front(), now - minutes(kMaxFiresPerDecision - 1));
  EXPECT_EQ(d.skipped, 4321 - static_cast<std::int64_t>(kMaxFiresPerDecision));
  EXPECT_EQ(d.newest_skipped, now - minutes(kMaxFiresPerDecision));
}

TEST_F(CatchupPatternTest, PatternThatNeverFiresAgainLeavesNoNextInstant) {
  // Stored next_fire_at from a valid day; "0 0 30 2 *" never matches.
  const CatchupDecision d = DecideCatchup(ParseCron("0 0 30 2 *"), utc_, At("2026-10-20T00:00:00Z"),
                                          At("2026-10-20T00:00:10Z"), Rule(CatchupPolicy::kLatest));
  EXPECT_EQ(d.fire.size(), 1u);
  EXPECT_EQ(d.next_fire_at, std::nullopt);
}

}  // namespace
}  // namespace chopar::schedule
