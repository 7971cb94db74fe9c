#include "core/rate_limit.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace chopar::core {
namespace {

using std::chrono::minutes;

// The seed's exercise: a per-(user, channel) history, limit per channel.
struct History {
  std::vector<TimePoint> sms, email;

  // Returns whether the delivery is sent, and records it if so.
  bool Offer(std::vector<TimePoint>& history, TimePoint now, int limit) {
    const RateDecision decision = DecideRateLimit(CountInWindow(history, now), 1, limit);
    if (decision.pass == 1) history.push_back(now);
    return decision.pass == 1;
  }
};

TEST(RateLimitTest, SeedSmsExample) {
  const TimePoint t0{std::chrono::hours(24 * 20000)};
  History h;
  EXPECT_TRUE(h.Offer(h.sms, t0, 3));
  EXPECT_TRUE(h.Offer(h.sms, t0 + minutes(1), 3));
  EXPECT_TRUE(h.Offer(h.sms, t0 + minutes(2), 3));
  EXPECT_FALSE(h.Offer(h.sms, t0 + minutes(3), 3)) << "4th sms in the hour";
  EXPECT_TRUE(h.Offer(h.email, t0 + minutes(3), 20)) << "email has its own limit";
  EXPECT_TRUE(h.Offer(h.sms, t0 + minutes(61), 3)) << "the first sms left the window";
  EXPECT_EQ(h.sms.size() + h.email.size(), 5u) << "history length 5";
}

TEST(RateLimitTest, BatchSplitsInOrder) {
  EXPECT_EQ(DecideRateLimit(0, 5, 3), (RateDecision{3, 2}));
  EXPECT_EQ(DecideRateLimit(2, 5, 3), (RateDecision{1, 4}));
  EXPECT_EQ(DecideRateLimit(3, 5, 3), (RateDecision{0, 5}));
  EXPECT_EQ(DecideRateLimit(7, 1, 3), (RateDecision{0, 1})) << "already over the limit";
  EXPECT_EQ(DecideRateLimit(0, 2, 3), (RateDecision{2, 0}));
  EXPECT_EQ(DecideRateLimit(0, 0, 3), (RateDecision{0, 0}));
  EXPECT_EQ(DecideRateLimit(0, 4, 0), (RateDecision{0, 4})) << "limit 0 sends nothing";
}

TEST(RateLimitTest, WindowIsSlidingAndHalfOpen) {
  const TimePoint now{std::chrono::hours(24 * 20000)};
  const std::vector<TimePoint> history = {now - minutes(60), now - minutes(59), now, now + minutes(1)};
  // Exactly one hour ago is outside; the future is not counted.
  EXPECT_EQ(CountInWindow(history, now), 2);
}

TEST(RateLimitTest, ReasonNamesTheLimit) { EXPECT_EQ(RateLimitReason(3), "hourly limit 3"); }

}  // namespace
}  // namespace chopar::core
