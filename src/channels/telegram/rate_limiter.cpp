#include "channels/telegram/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace chopar::channels::telegram {
namespace {

std::chrono::nanoseconds SlotLength(double max_per_second) {
  if (!(max_per_second > 0) || !std::isfinite(max_per_second)) {
    throw std::invalid_argument("telegram max_per_second must be a positive number");
  }
  const auto slot =
      std::chrono::nanoseconds(static_cast<std::int64_t>(std::ceil(1e9 / max_per_second)));
  return std::max(slot, std::chrono::nanoseconds(1));
}

}  // namespace

TelegramRateLimiter::TelegramRateLimiter(double max_per_second,
                                         std::chrono::nanoseconds per_chat_interval)
    : slot_(SlotLength(max_per_second)), per_chat_interval_(per_chat_interval) {}

TelegramRateLimiter::Turn TelegramRateLimiter::Reserve(std::int64_t chat_id, TimePoint now,
                                                       TimePoint deadline) {
  std::lock_guard lock(mutex_);
  const Ticks slot = slot_.count();
  Prune(now.time_since_epoch().count() / slot, now);

  TimePoint earliest = now;
  if (const auto it = chat_free_at_.find(chat_id); it != chat_free_at_.end()) {
    earliest = std::max(earliest, it->second);
  }
  // Turns start on slot boundaries, so two turns are always a whole slot apart.
  Ticks k = (earliest.time_since_epoch().count() + slot - 1) / slot;
  for (auto it = taken_slots_.lower_bound(k); it != taken_slots_.end() && *it == k; ++it) ++k;
  const TimePoint at{std::chrono::nanoseconds(k * slot)};
  if (at > deadline) return {false, at};
  taken_slots_.insert(k);
  chat_free_at_[chat_id] = at + per_chat_interval_;
  return {true, at};
}

void TelegramRateLimiter::Defer(std::int64_t chat_id, TimePoint until) {
  std::lock_guard lock(mutex_);
  TimePoint& free_at = chat_free_at_[chat_id];
  free_at = std::max(free_at, until);
}

void TelegramRateLimiter::Prune(Ticks now_slot, TimePoint now) {
  taken_slots_.erase(taken_slots_.begin(), taken_slots_.lower_bound(now_slot));
  if (chat_free_at_.size() < prune_chats_at_) return;
  std::erase_if(chat_free_at_, [now](const auto& entry) { return entry.second <= now; });
  prune_chats_at_ = std::max<std::size_t>(4096, 2 * chat_free_at_.size());
}

}  // namespace chopar::channels::telegram
