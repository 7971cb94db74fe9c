#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace chopar::core {

// A source of uniform random integers, injectable so tests can pin jitter.
// Implementations must be thread-safe.
class Random {
 public:
  virtual ~Random() = default;
  // A uniformly distributed integer in [0, upper] (both inclusive).
  virtual std::uint64_t Uniform(std::uint64_t upper) = 0;
};

// A per-thread Mersenne Twister seeded from std::random_device. Thread-safe.
class ThreadLocalRandom final : public Random {
 public:
  std::uint64_t Uniform(std::uint64_t upper) override;
  // The process-wide instance.
  static ThreadLocalRandom& Instance();
};

// Exponential backoff with full jitter: attempt n (1-based) waits a random
// time in [0, min(cap, initial · 2^(n−1))].
struct BackoffPolicy {
  std::chrono::milliseconds initial{1000};
  std::chrono::milliseconds cap{std::chrono::hours(1)};
};

// The longest wait a provider's Retry-After (or retry_after) is honoured
// for, unless the policy's cap is longer: a far-future date from a confused
// or hostile provider must neither overflow nor park a delivery for years.
inline constexpr std::chrono::seconds kLongestRetryAfter{std::chrono::hours(24)};

// The delay before retrying after failed attempt `attempt` (values below 1
// count as 1). A provider's own `retry_after` wins over the computed delay,
// up to max(policy.cap, kLongestRetryAfter): the provider knows when it will
// accept again. Pure apart from the draw from `random`; never overflows
// however large `attempt` or `retry_after` is.
std::chrono::milliseconds BackoffDelay(const BackoffPolicy& policy, int attempt, Random& random,
                                       std::optional<std::chrono::seconds> retry_after = std::nullopt);

// The ceiling of the jitter range for `attempt`: min(cap, initial · 2^(n−1)).
std::chrono::milliseconds BackoffCeiling(const BackoffPolicy& policy, int attempt);

}  // namespace chopar::core
