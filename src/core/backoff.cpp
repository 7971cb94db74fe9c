#include "core/backoff.hpp"

#include <algorithm>
#include <random>

namespace chopar::core {

std::uint64_t ThreadLocalRandom::Uniform(std::uint64_t upper) {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_int_distribution<std::uint64_t>(0, upper)(engine);
}

ThreadLocalRandom& ThreadLocalRandom::Instance() {
  static ThreadLocalRandom instance;
  return instance;
}

std::chrono::milliseconds BackoffCeiling(const BackoffPolicy& policy, int attempt) {
  const auto cap = std::max(policy.cap, std::chrono::milliseconds(0));
  auto ceiling = std::max(policy.initial, std::chrono::milliseconds(0));
  // Doubling stops once the cap is reached, so it cannot overflow.
  for (int n = 1; n < attempt && ceiling > std::chrono::milliseconds(0) && ceiling < cap; ++n) {
    ceiling = ceiling > cap / 2 ? cap : ceiling * 2;
  }
  return std::min(ceiling, cap);
}

std::chrono::milliseconds BackoffDelay(const BackoffPolicy& policy, int attempt, Random& random,
                                       std::optional<std::chrono::seconds> retry_after) {
  if (retry_after && retry_after->count() >= 0) {
    const std::chrono::milliseconds longest =
        std::max<std::chrono::milliseconds>(policy.cap, kLongestRetryAfter);
    // Compared in seconds: a huge value would overflow as milliseconds.
    if (*retry_after >= std::chrono::duration_cast<std::chrono::seconds>(longest)) return longest;
    return *retry_after;
  }
  const auto ceiling = BackoffCeiling(policy, std::max(attempt, 1));
  return std::chrono::milliseconds(
      static_cast<std::int64_t>(random.Uniform(static_cast<std::uint64_t>(ceiling.count()))));
}

}  // namespace chopar::core
