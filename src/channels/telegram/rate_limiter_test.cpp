#include "channels/telegram/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace chopar::channels::telegram {
namespace {

using namespace std::chrono_literals;
using TimePoint = TelegramRateLimiter::TimePoint;

// A fixed instant on the steady clock; the limiter never reads the clock itself.
const TimePoint kStart = TimePoint(1000s);
const TimePoint kFarAway = kStart + 24h;

TEST(TelegramRateLimiterTest, BotWideTurnsArePacedWithoutBurst) {
  TelegramRateLimiter limiter(30, 1s);
  std::vector<TimePoint> turns;
  for (int chat = 1; chat <= 90; ++chat) {
    const auto turn = limiter.Reserve(chat, kStart, kFarAway);
    ASSERT_TRUE(turn.reserved);
    turns.push_back(turn.at);
  }
  EXPECT_GE(turns.front(), kStart);
  for (std::size_t i = 1; i < turns.size(); ++i) {
    EXPECT_GE(turns[i] - turns[i - 1], std::chrono::nanoseconds(33'333'333)) << i;
  }
  // 90 messages at 30 per second: the last one starts 89/30 s after the first.
  EXPECT_GE(turns.back() - turns.front(), 2966ms);
  EXPECT_LT(turns.back() - turns.front(), 2968ms);
}

TEST(TelegramRateLimiterTest, SameChatTurnsAreOneIntervalApart) {
  TelegramRateLimiter limiter(1000, 1s);
  const auto first = limiter.Reserve(7, kStart, kFarAway);
  const auto second = limiter.Reserve(7, kStart, kFarAway);
  const auto third = limiter.Reserve(7, kStart + 100ms, kFarAway);
  ASSERT_TRUE(first.reserved && second.reserved && third.reserved);
  EXPECT_GE(second.at - first.at, 1s);
  EXPECT_GE(third.at - second.at, 1s);
}

TEST(TelegramRateLimiterTest, MessageWaitingForItsChatDoesNotHoldBackOtherChats) {
  TelegramRateLimiter limiter(10, 1s);  // turns 100 ms apart
  const auto a1 = limiter.Reserve(1, kStart, kFarAway);
  const auto a2 = limiter.Reserve(1, kStart, kFarAway);  // waits a second for chat 1
  const auto b = limiter.Reserve(2, kStart, kFarAway);
  const auto c = limiter.Reserve(3, kStart, kFarAway);
  EXPECT_GE(a2.at - a1.at, 1s);
  EXPECT_LT(b.at, a2.at);
  EXPECT_LT(c.at, a2.at);
  EXPECT_EQ(b.at - a1.at, 100ms);
  EXPECT_EQ(c.at - b.at, 100ms);
}

TEST(TelegramRateLimiterTest, FreeTurnBeforeAWaitingMessageIsUsedByTheNextChat) {
  TelegramRateLimiter limiter(10, 1s);
  const auto a1 = limiter.Reserve(1, kStart, kFarAway);
  const auto a2 = limiter.Reserve(1, kStart, kFarAway);
  // Fill every turn between a1 and a2, then one more: it lands right after a2.
  std::vector<TimePoint> others;
  for (int chat = 100; chat < 110; ++chat)
    others.push_back(limiter.Reserve(chat, kStart, kFarAway).at);
  std::set<TimePoint> all(others.begin(), others.end());
  all.insert(a1.at);
  all.insert(a2.at);
  EXPECT_EQ(all.size(), others.size() + 2) << "no two messages share a turn";
  EXPECT_EQ(others.back() - a2.at, 100ms);
}

TEST(TelegramRateLimiterTest, TurnAfterDeadlineIsRefusedAndNotReserved) {
  TelegramRateLimiter limiter(1, 1s);
  int reserved = 0;
  TelegramRateLimiter::Turn refused;
  for (int chat = 1; chat <= 10; ++chat) {
    const auto turn = limiter.Reserve(chat, kStart, kStart + 2500ms);
    if (!turn.reserved) {
      refused = turn;
      break;
    }
    ++reserved;
  }
  EXPECT_EQ(reserved, 3);  // turns at 0, 1 and 2 s
  EXPECT_FALSE(refused.reserved);
  EXPECT_EQ(refused.at, kStart + 3s);
  // The refused turn is still free for the next caller.
  const auto next = limiter.Reserve(99, kStart, kFarAway);
  EXPECT_TRUE(next.reserved);
  EXPECT_EQ(next.at, kStart + 3s);
}

TEST(TelegramRateLimiterTest, DeferHoldsTheChatUntilTheGivenInstant) {
  TelegramRateLimiter limiter(1000, 1s);
  limiter.Defer(5, kStart + 30s);
  EXPECT_GE(limiter.Reserve(5, kStart, kFarAway).at, kStart + 30s);
  EXPECT_LT(limiter.Reserve(6, kStart, kFarAway).at, kStart + 1s);
}

TEST(TelegramRateLimiterTest, PastTurnsDoNotDelayLaterMessages) {
  TelegramRateLimiter limiter(1, 1s);
  for (int chat = 1; chat <= 5; ++chat) (void)limiter.Reserve(chat, kStart, kFarAway);
  const auto later = limiter.Reserve(6, kStart + 1h, kFarAway);
  EXPECT_EQ(later.at, kStart + 1h);
}

TEST(TelegramRateLimiterTest, RejectsANonPositiveRate) {
  EXPECT_THROW(TelegramRateLimiter(0, 1s), std::invalid_argument);
  EXPECT_THROW(TelegramRateLimiter(-5, 1s), std::invalid_argument);
}

TEST(TelegramRateLimiterTest, ConcurrentCallersNeverShareATurn) {
  TelegramRateLimiter limiter(1000, 1s);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 500;
  std::vector<std::vector<TimePoint>> turns(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        turns[t].push_back(limiter.Reserve(t * kPerThread + i, kStart, kFarAway).at);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<TimePoint> distinct;
  for (const auto& list : turns) distinct.insert(list.begin(), list.end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kThreads * kPerThread));
  EXPECT_EQ(*distinct.rbegin() - *distinct.begin(), 1999ms);
}

}  // namespace
}  // namespace chopar::channels::telegram
