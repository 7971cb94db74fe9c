#include "core/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace chopar::core {

TokenBuckets::TokenBuckets(const Clock& clock, BucketRate rate, std::size_t max_keys)
    : clock_(clock),
      rate_{rate.per_second, std::max(rate.burst, 1.0)},
      max_keys_(std::max<std::size_t>(max_keys, 1)) {}

Admission TokenBuckets::TryTake(std::string_view key) {
  if (!rate_.limits()) return {};
  const TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  auto found = by_key_.find(key);
  if (found == by_key_.end()) {
    if (recency_.size() >= max_keys_) {
      by_key_.erase(recency_.back().key);
      recency_.pop_back();
    }
    recency_.push_front(Bucket{std::string(key), rate_.burst, now});
    found = by_key_.emplace(recency_.front().key, recency_.begin()).first;
  } else {
    recency_.splice(recency_.begin(), recency_, found->second);
  }
  Bucket& bucket = *found->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.refilled_at).count();
  // A clock that went back refills nothing; the bucket counts from now on.
  bucket.tokens = std::min(rate_.burst, bucket.tokens + std::max(elapsed, 0.0) * rate_.per_second);
  bucket.refilled_at = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return {};
  }
  const double wait_seconds = (1 - bucket.tokens) / rate_.per_second;
  const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(wait_seconds));
  return {false, std::max(wait, std::chrono::nanoseconds(1))};
}

std::size_t TokenBuckets::size() const {
  std::lock_guard lock(mutex_);
  return recency_.size();
}

std::chrono::seconds RetryAfterSeconds(std::chrono::nanoseconds wait) {
  const auto whole = std::chrono::ceil<std::chrono::seconds>(wait);
  return std::max(whole, std::chrono::seconds(1));
}

}  // namespace chopar::core
