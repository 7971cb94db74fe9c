#include "delivery/claim_plan.hpp"

#include <gtest/gtest.h>

#include "core/time_format.hpp"

namespace chopar::delivery {
namespace {

using core::ChannelKind;
using std::chrono::hours;

const core::TimePoint kNoon = *core::ParseRfc3339("2026-10-28T07:00:00Z");   // 12:00 in Tashkent
const core::TimePoint kNight = *core::ParseRfc3339("2026-10-28T18:30:00Z");  // 23:30 in Tashkent

Candidate Sms(std::int64_t id, bool critical = false) {
  Candidate c;
  c.id = id;
  c.user_id = 7;
  c.channel = ChannelKind::kSms;
  c.critical = critical;
  return c;
}

Candidate Quiet(std::int64_t id, bool critical) {
  Candidate c = Sms(id, critical);
  c.timezone = "Asia/Tashkent";
  c.quiet_start = hours(22);
  c.quiet_end = hours(8);
  return c;
}

TEST(ClaimPlanTest, LimitPassesTheOldestFirstAndSkipsTheRestWithTheReason) {
  const std::vector<Candidate> candidates = {Sms(13), Sms(11), Sms(12), Sms(10)};
  const auto plan = PlanClaim(candidates, kNoon, WorkerSettings{}, {{{7, ChannelKind::kSms}, 1}});
  EXPECT_EQ(plan[0].action, ClaimAction::kSkip);
  EXPECT_EQ(plan[0].reason, "hourly limit 3");
  EXPECT_EQ(plan[1].action, ClaimAction::kSend);
  EXPECT_EQ(plan[2].action, ClaimAction::kSkip);
  EXPECT_EQ(plan[3].action, ClaimAction::kSend);
  EXPECT_EQ(plan[3].reason, std::nullopt) << "a plain send keeps the previous reason";
}

TEST(ClaimPlanTest, CriticalPassesTheLimitFirst) {
  const std::vector<Candidate> candidates = {Sms(1), Sms(2), Sms(3), Sms(4, /*critical=*/true)};
  const auto plan = PlanClaim(candidates, kNoon, WorkerSettings{}, {{{7, ChannelKind::kSms}, 1}});
  EXPECT_EQ(plan[3].action, ClaimAction::kSend);
  EXPECT_EQ(plan[0].action, ClaimAction::kSend);
  EXPECT_EQ(plan[1].action, ClaimAction::kSkip);
  EXPECT_EQ(plan[2].action, ClaimAction::kSkip);
}

TEST(ClaimPlanTest, EachUserAndChannelHasItsOwnLimit) {
  Candidate email = Sms(2);
  email.channel = ChannelKind::kEmail;
  Candidate other_user = Sms(3);
  other_user.user_id = 8;
  const std::vector<Candidate> candidates = {Sms(1), email, other_user};
  const auto plan = PlanClaim(candidates, kNoon, WorkerSettings{}, {{{7, ChannelKind::kSms}, 3}});
  EXPECT_EQ(plan[0].action, ClaimAction::kSkip);
  EXPECT_EQ(plan[1].action, ClaimAction::kSend);
  EXPECT_EQ(plan[2].action, ClaimAction::kSend);
}

TEST(ClaimPlanTest, QuietHoursDeferNonCriticalOnly) {
  const std::vector<Candidate> candidates = {Quiet(1, false), Quiet(2, true)};
  const auto plan = PlanClaim(candidates, kNight, WorkerSettings{}, {});
  EXPECT_EQ(plan[0].action, ClaimAction::kDefer);
  EXPECT_EQ(plan[0].until, core::ParseRfc3339("2026-10-29T03:00:00Z"));
  EXPECT_EQ(plan[0].reason, "quiet hours until 2026-10-29T03:00:00Z");
  EXPECT_EQ(plan[1].action, ClaimAction::kSend);
  // Only the critical one needs a rate count.
  EXPECT_EQ(RateKeysToCheck(candidates, kNight, WorkerSettings{}).size(), 1u);
  EXPECT_EQ(PreDecide(Quiet(3, false), kNoon, WorkerSettings{}), std::nullopt) << "not quiet at noon";
}

TEST(ClaimPlanTest, DeferredDeliveriesDoNotUseUpTheLimit) {
  std::vector<Candidate> candidates = {Quiet(1, false), Quiet(2, false), Quiet(3, false), Quiet(4, false),
                                       Quiet(5, true)};
  const auto plan = PlanClaim(candidates, kNight, WorkerSettings{}, {{{7, ChannelKind::kSms}, 2}});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(plan[i].action, ClaimAction::kDefer);
  EXPECT_EQ(plan[4].action, ClaimAction::kSend);
}

TEST(ClaimPlanTest, TakenBackLeaseIsSentAgainOrFailsOnTheLastAttempt) {
  WorkerSettings settings;
  settings.max_attempts = 3;
  Candidate again = Sms(1), last = Sms(2);
  again.reclaimed = last.reclaimed = true;
  again.attempts = 2;
  last.attempts = 3;
  const std::vector<Candidate> candidates = {again, last};
  const auto plan = PlanClaim(candidates, kNoon, settings, {});
  EXPECT_EQ(plan[0].action, ClaimAction::kSend);
  EXPECT_EQ(plan[0].reason, "lease expired on attempt 2; taken back");
  EXPECT_EQ(plan[1].action, ClaimAction::kFail);
  EXPECT_EQ(plan[1].reason, "lease expired on attempt 3 of 3; giving up");
}

TEST(ClaimPlanTest, RateKeysAreDistinctAndSorted) {
  Candidate a = Sms(1), b = Sms(2), c = Sms(3);
  c.user_id = 3;
  b.channel = ChannelKind::kEmail;
  const std::vector<Candidate> candidates = {a, b, c, Sms(4)};
  const auto keys = RateKeysToCheck(candidates, kNoon, WorkerSettings{});
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(keys[0], (RateKey{3, ChannelKind::kSms}));
}

}  // namespace
}  // namespace chopar::delivery
