#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>

namespace chopar::channels::telegram {

// Our side of Telegram's flood limits, as reservations on a timeline: a
// bot-wide pace of `max_per_second` (turns at least 1/max_per_second apart,
// no burst) and a minimum `per_chat_interval` between two messages to the
// same chat. A message gets the earliest instant that satisfies both; a
// message that must wait for its chat does not push back messages to other
// chats (they take the free turns before it). Pure bookkeeping on the
// steady clock: callers pass `now`, so tests drive it without sleeping.
// Thread-safe (one mutex); shared by every Send() of a channel.
class TelegramRateLimiter {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // Throws std::invalid_argument unless max_per_second > 0.
  TelegramRateLimiter(double max_per_second, std::chrono::nanoseconds per_chat_interval);

  struct Turn {
    bool reserved = false;  // false: the earliest turn is after the deadline
    TimePoint at{};         // the turn (reserved), or the earliest one (not reserved)
  };

  // Reserves the earliest turn at or after `now` for a message to `chat_id`,
  // unless that turn is later than `deadline`; then nothing is reserved and
  // `at` tells when a turn would have been.
  Turn Reserve(std::int64_t chat_id, TimePoint now, TimePoint deadline);

  // No message to `chat_id` before `until` (Telegram answered 429 for it).
  void Defer(std::int64_t chat_id, TimePoint until);

 private:
  using Ticks = std::chrono::nanoseconds::rep;
  void Prune(Ticks now_slot, TimePoint now);

  const std::chrono::nanoseconds slot_;
  const std::chrono::nanoseconds per_chat_interval_;
  std::mutex mutex_;
  std::set<Ticks> taken_slots_;  // slot k starts at k * slot_ on the steady clock
  std::unordered_map<std::int64_t, TimePoint> chat_free_at_;
  std::size_t prune_chats_at_ = 4096;
};

}  // namespace chopar::channels::telegram
