#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.hpp"

namespace chopar::core {

// How fast a bucket refills and how much it holds.
struct BucketRate {
  double per_second = 0;  // tokens added per second; 0 or less: no limit at all
  double burst = 1;       // tokens a full bucket holds (taken as at least 1)

  [[nodiscard]] bool limits() const { return per_second > 0; }
};

// Whether one request may go now.
struct Admission {
  bool admitted = true;
  // Not admitted: how long until the bucket holds a whole token again
  // (positive). Admitted: zero.
  std::chrono::nanoseconds retry_after{0};
};

// A token bucket per key (a subscriber, a client address), in memory. A new
// key starts with a full bucket of `burst` tokens; each request takes one; a
// bucket refills at `per_second` up to `burst`. A request finding less than
// one token takes nothing and is told how long to wait.
//
// Memory is bounded: at most `max_keys` buckets are kept. A new key over the
// cap evicts the bucket used least recently — the idlest one, which has
// usually refilled and so loses nothing; an evicted key that comes back
// starts full again.
//
// Time comes from `clock` (which must outlive this); a clock that goes back
// refills nothing and never takes tokens away. Thread-safe (one mutex).
class TokenBuckets {
 public:
  // max_keys is taken as at least 1.
  TokenBuckets(const Clock& clock, BucketRate rate, std::size_t max_keys);
  TokenBuckets(const TokenBuckets&) = delete;
  TokenBuckets& operator=(const TokenBuckets&) = delete;

  // Takes one token from `key`'s bucket if it holds one. With a rate that
  // does not limit, always admits and keeps nothing.
  [[nodiscard]] Admission TryTake(std::string_view key);

  // Buckets kept now.
  [[nodiscard]] std::size_t size() const;

 private:
  struct Bucket {
    std::string key;
    double tokens;
    TimePoint refilled_at;
  };
  using Recency = std::list<Bucket>;  // most recently used first

  const Clock& clock_;
  const BucketRate rate_;
  const std::size_t max_keys_;
  mutable std::mutex mutex_;
  Recency recency_;
  std::unordered_map<std::string_view, Recency::iterator> by_key_;  // views into recency_
};

// Whole seconds for a Retry-After header: `wait` rounded up, at least 1.
std::chrono::seconds RetryAfterSeconds(std::chrono::nanoseconds wait);

}  // namespace chopar::core
