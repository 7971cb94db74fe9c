#include "core/token_bucket.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace chopar::core {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

const TimePoint kStart{std::chrono::hours(24 * 20000)};

int Admitted(TokenBuckets& buckets, std::string_view key, int requests) {
  int admitted = 0;
  for (int i = 0; i < requests; ++i) admitted += buckets.TryTake(key).admitted ? 1 : 0;
  return admitted;
}

TEST(TokenBucketsTest, BurstIsAdmittedThenTheRest) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 2, .burst = 5}, 100);
  EXPECT_EQ(Admitted(buckets, "a", 300), 5) << "300 at one instant: the burst only";
  const Admission refused = buckets.TryTake("a");
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, milliseconds(500)) << "one token at 2 per second";
}

TEST(TokenBucketsTest, RefillsAtTheRateUpToTheBurst) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 2, .burst = 5}, 100);
  ASSERT_EQ(Admitted(buckets, "a", 5), 5);
  clock.Advance(milliseconds(1250));
  EXPECT_EQ(Admitted(buckets, "a", 10), 2) << "1.25 s at 2 per second: two and a half tokens";
  const Admission refused = buckets.TryTake("a");
  EXPECT_EQ(refused.retry_after, milliseconds(250)) << "half a token left";
  clock.Advance(std::chrono::hours(1));
  EXPECT_EQ(Admitted(buckets, "a", 10), 5) << "a long idle time refills to the burst, no more";
}

TEST(TokenBucketsTest, KeysAreIndependent) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 1, .burst = 3}, 100);
  EXPECT_EQ(Admitted(buckets, "a", 10), 3);
  EXPECT_EQ(Admitted(buckets, "b", 10), 3);
  EXPECT_EQ(buckets.size(), 2u);
}

TEST(TokenBucketsTest, SlowRateGivesAWaitOfSeconds) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 0.1, .burst = 1}, 100);
  ASSERT_TRUE(buckets.TryTake("a").admitted);
  clock.Advance(seconds(3));
  const Admission refused = buckets.TryTake("a");
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(std::chrono::round<milliseconds>(refused.retry_after), seconds(7));
}

TEST(TokenBucketsTest, RateZeroLimitsNothingAndKeepsNothing) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 0, .burst = 0}, 100);
  EXPECT_EQ(Admitted(buckets, "a", 1000), 1000);
  EXPECT_EQ(buckets.size(), 0u);
}

TEST(TokenBucketsTest, BurstBelowOneIsOne) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 1, .burst = 0.2}, 100);
  EXPECT_EQ(Admitted(buckets, "a", 5), 1);
}

TEST(TokenBucketsTest, KeysAreCappedAndTheIdlestIsEvicted) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 1, .burst = 2}, 3);
  ASSERT_EQ(Admitted(buckets, "old", 2), 2);
  clock.Advance(milliseconds(10));
  ASSERT_EQ(Admitted(buckets, "b", 2), 2);
  ASSERT_EQ(Admitted(buckets, "c", 2), 2);
  ASSERT_EQ(Admitted(buckets, "b", 1), 0) << "b stays the most recently used";
  ASSERT_EQ(Admitted(buckets, "new", 1), 1);
  EXPECT_EQ(buckets.size(), 3u) << "never more than the cap";
  EXPECT_EQ(Admitted(buckets, "b", 1), 0) << "b was kept, still empty";
  EXPECT_EQ(Admitted(buckets, "c", 1), 0) << "c was kept, still empty";
  EXPECT_EQ(Admitted(buckets, "old", 2), 2) << "the idlest key was evicted and starts full";
  EXPECT_EQ(buckets.size(), 3u);
}

TEST(TokenBucketsTest, AClockGoingBackRefillsNothing) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 1, .burst = 2}, 100);
  ASSERT_EQ(Admitted(buckets, "a", 2), 2);
  clock.Advance(-std::chrono::minutes(10));
  EXPECT_EQ(Admitted(buckets, "a", 1), 0);
  clock.Advance(seconds(1));
  EXPECT_EQ(Admitted(buckets, "a", 2), 1) << "refills from where the clock went back to";
}

TEST(TokenBucketsTest, ConcurrentTakersNeverExceedTheBurst) {
  SimulatedClock clock(kStart);
  TokenBuckets buckets(clock, {.per_second = 1, .burst = 100}, 10);
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] { admitted += Admitted(buckets, "shared", 50); });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), 100);
}

TEST(TokenBucketsTest, RetryAfterIsWholeSecondsAtLeastOne) {
  EXPECT_EQ(RetryAfterSeconds(nanoseconds(1)), seconds(1));
  EXPECT_EQ(RetryAfterSeconds(milliseconds(250)), seconds(1));
  EXPECT_EQ(RetryAfterSeconds(milliseconds(1000)), seconds(1));
  EXPECT_EQ(RetryAfterSeconds(milliseconds(1001)), seconds(2));
  EXPECT_EQ(RetryAfterSeconds(nanoseconds(0)), seconds(1));
}

}  // namespace
}  // namespace chopar::core
