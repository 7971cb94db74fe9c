#include "core/backoff.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <limits>
#include <set>

namespace chopar::core {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Always draws the top of the range, or the bottom, and remembers the range.
class FixedRandom final : public Random {
 public:
  explicit FixedRandom(bool top) : top_(top) {}
  std::uint64_t Uniform(std::uint64_t upper) override {
    last_upper = upper;
    return top_ ? upper : 0;
  }
  std::uint64_t last_upper = 0;

 private:
  bool top_;
};

const BackoffPolicy kPolicy{seconds(1), seconds(3600)};

TEST(BackoffTest, DoublesPerAttemptUpToTheCap) {
  FixedRandom top(true);
  EXPECT_EQ(BackoffDelay(kPolicy, 1, top), seconds(1));
  EXPECT_EQ(BackoffDelay(kPolicy, 2, top), seconds(2));
  EXPECT_EQ(BackoffDelay(kPolicy, 3, top), seconds(4));
  EXPECT_EQ(BackoffDelay(kPolicy, 8, top), seconds(128));
  EXPECT_EQ(BackoffDelay(kPolicy, 12, top), seconds(2048));
  EXPECT_EQ(BackoffDelay(kPolicy, 13, top), seconds(3600)) << "4096 s is capped";
  EXPECT_EQ(BackoffDelay(kPolicy, INT_MAX, top), seconds(3600)) << "no overflow";
  EXPECT_EQ(BackoffDelay(kPolicy, 0, top), seconds(1)) << "attempt below 1 counts as 1";
}

TEST(BackoffTest, FullJitterDrawsFromZeroToTheCeiling) {
  FixedRandom bottom(false);
  EXPECT_EQ(BackoffDelay(kPolicy, 5, bottom), milliseconds(0));
  EXPECT_EQ(bottom.last_upper, 16000u) << "range is [0, 16 s] in milliseconds";
}

TEST(BackoffTest, RealRandomStaysInRangeAndVaries) {
  std::set<long long> seen;
  for (int i = 0; i < 200; ++i) {
    const auto delay = BackoffDelay(kPolicy, 4, ThreadLocalRandom::Instance());
    EXPECT_GE(delay, milliseconds(0));
    EXPECT_LE(delay, seconds(8));
    seen.insert(delay.count());
  }
  EXPECT_GT(seen.size(), 50u);
}

TEST(BackoffTest, ProviderRetryAfterWins) {
  FixedRandom top(true);
  EXPECT_EQ(BackoffDelay(kPolicy, 1, top, seconds(120)), seconds(120));
  EXPECT_EQ(BackoffDelay(kPolicy, 20, top, seconds(7200)), seconds(7200)) << "not capped";
  EXPECT_EQ(BackoffDelay(kPolicy, 3, top, seconds(0)), seconds(0));
}

TEST(BackoffTest, AFarFutureRetryAfterIsClampedToADayNotOverflowed) {
  FixedRandom top(true);
  const seconds huge(std::numeric_limits<seconds::rep>::max());
  EXPECT_EQ(BackoffDelay(kPolicy, 1, top, huge), kLongestRetryAfter);
  EXPECT_EQ(BackoffDelay(kPolicy, 1, top, std::chrono::hours(48)), kLongestRetryAfter);
  // A cap above a day is honoured as the longest wait.
  const BackoffPolicy patient{seconds(1), std::chrono::hours(72)};
  EXPECT_EQ(BackoffDelay(patient, 1, top, huge), std::chrono::hours(72));
}

TEST(BackoffTest, ZeroInitialNeverWaits) {
  FixedRandom top(true);
  EXPECT_EQ(BackoffDelay({milliseconds(0), seconds(10)}, 1000000, top), milliseconds(0));
}

}  // namespace
}  // namespace chopar::core
