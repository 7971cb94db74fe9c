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
  EXPECT_EQ(PreDecide(Quiet(3, false), kNoon, WorkerSettings{}), std::nullopt)
      << "not quiet at noon";
}

TEST(ClaimPlanTest, DeferredDeliveriesDoNotUseUpTheLimit) {
  std::vector<Candidate> candidates = {Quiet(1, false), Quiet(2, false), Quiet(3, false),
                                       Quiet(4, false), Quiet(5, true)};
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

Candidate OfType(std::int64_t id, const std::string& type,
                 ChannelKind channel = ChannelKind::kSms) {
  Candidate c = Sms(id);
  c.type = type;
  c.channel = channel;
  return c;
}

// Throttles where task.noisy, the only throttled type, may send `limit` an
// hour, with nothing yet in its windows.
Throttles NoisyThrottle(int limit) {
  Throttles throttles;
  throttles.by_type["task.noisy"] = {.limit = limit, .window = hours(1)};
  return throttles;
}

TEST(ClaimPlanTest, ThrottleCountsEveryChannelOfTheTypeAndSkipsTheRest) {
  const Throttles throttles = NoisyThrottle(2);
  // Five of the throttled type over two channels, one of another type.
  const std::vector<Candidate> candidates = {OfType(5, "task.noisy"),
                                             OfType(1, "task.noisy", ChannelKind::kEmail),
                                             OfType(3, "task.noisy"),
                                             OfType(2, "task.noisy"),
                                             OfType(4, "task.noisy", ChannelKind::kEmail),
                                             OfType(6, "task.quiet")};
  const auto plan = PlanClaim(candidates, kNoon, WorkerSettings{}, {}, throttles);
  // Ids 1 and 2 pass (the oldest), the other three of the type are throttled.
  EXPECT_EQ(plan[1].action, ClaimAction::kSend);
  EXPECT_EQ(plan[3].action, ClaimAction::kSend);
  for (const std::size_t i : {0u, 2u, 4u}) {
    EXPECT_EQ(plan[i].action, ClaimAction::kSkip) << i;
    EXPECT_EQ(plan[i].reason, "throttled") << i;
  }
  EXPECT_EQ(plan[5].action, ClaimAction::kSend) << "another type has no throttle";
}

TEST(ClaimPlanTest, ThrottleCountsWhatTheWindowHoldsAndPassesCriticalFirst) {
  Throttles throttles = NoisyThrottle(2);
  throttles.in_window[{7, "task.noisy"}] = 1;
  Candidate critical = OfType(9, "task.noisy");
  critical.critical = true;
  const std::vector<Candidate> candidates = {OfType(1, "task.noisy"), critical};
  const auto plan = PlanClaim(candidates, kNoon, WorkerSettings{}, {}, throttles);
  EXPECT_EQ(plan[1].action, ClaimAction::kSend);
  EXPECT_EQ(plan[0].action, ClaimAction::kSkip);
}

TEST(ClaimPlanTest, ThrottledDeliveriesDoNotUseUpTheHourlyLimit) {
  const Throttles throttles = NoisyThrottle(1);
  // Hourly limit 3 on sms with 1 in the hour: two more may go, and the
  // throttled one does not take a place.
  const std::vector<Candidate> candidates = {OfType(1, "task.noisy"), OfType(2, "task.noisy"),
                                             OfType(3, "task.other")};
  const auto plan =
      PlanClaim(candidates, kNoon, WorkerSettings{}, {{{7, ChannelKind::kSms}, 1}}, throttles);
  EXPECT_EQ(plan[0].action, ClaimAction::kSend);
  EXPECT_EQ(plan[1].action, ClaimAction::kSkip);
  EXPECT_EQ(plan[1].reason, "throttled");
  EXPECT_EQ(plan[2].action, ClaimAction::kSend);
}

TEST(ClaimPlanTest, ThrottleKeysOnlyForThrottledTypes) {
  const Throttles throttles = NoisyThrottle(1);
  const std::vector<Candidate> candidates = {OfType(1, "task.noisy"), OfType(2, "task.other"),
                                             OfType(3, "task.noisy")};
  EXPECT_EQ(ThrottleKeysToCheck(candidates, kNoon, WorkerSettings{}, throttles),
            (std::vector<ThrottleKey>{{7, "task.noisy"}}));
  EXPECT_TRUE(ThrottleKeysToCheck(candidates, kNoon, WorkerSettings{}, {}).empty());
}

TEST(ClaimPlanTest, EscalatedDeliveryIsCanceledWhenReadEvenInQuietHours) {
  Candidate read = Quiet(1, false);
  read.unless_read = true;
  read.read_at = kNight - hours(1);
  Candidate unread = Quiet(2, false);
  unread.unless_read = true;
  Candidate read_later = Sms(3);  // read after the claim's instant: not yet a read
  read_later.unless_read = true;
  read_later.read_at = kNight + hours(1);
  Candidate not_escalated = Sms(4);
  not_escalated.read_at = kNight - hours(1);
  const std::vector<Candidate> candidates = {read, unread, read_later, not_escalated};
  const auto plan = PlanClaim(candidates, kNight, WorkerSettings{}, {});
  EXPECT_EQ(plan[0].action, ClaimAction::kCancel);
  EXPECT_EQ(plan[0].reason, "read");
  EXPECT_EQ(plan[1].action, ClaimAction::kDefer);
  EXPECT_EQ(plan[2].action, ClaimAction::kSend);
  EXPECT_EQ(plan[3].action, ClaimAction::kSend);
}

}  // namespace
}  // namespace chopar::delivery
