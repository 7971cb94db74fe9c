#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "core/token_bucket.hpp"
#include "http/message.hpp"
#include "http/settings.hpp"

namespace chopar::http {

// What a request is counted against (docs/api.md "Rate limits").
enum class RateScope {
  kSubscriber,  // the user of a verified subscriber token
  kAddress,     // the client's address (Request::client_address)
  kApiKey,      // every call made with the server API key
};

// The token buckets of [limits.http], in memory and per process: a 429 for
// a request over its scope's limit, decided without touching the database.
// Each scope keeps at most `max_keys` buckets (core::TokenBuckets evicts the
// idlest). Counts each refusal in chopar_http_rate_limited_total{scope}.
// `clock` and `registry` must outlive this. Thread-safe.
class RateLimiter {
 public:
  static constexpr std::size_t kMaxKeys = 100'000;

  RateLimiter(const RateLimitSettings& settings, const core::Clock& clock,
              core::MetricsRegistry& registry, std::size_t max_keys = kMaxKeys);

  // Takes one request of `key` in `scope`: nullopt when it may go on, else
  // the answer to send instead — 429 rate_limited with Retry-After (whole
  // seconds, at least 1). A scope whose rate is 0 admits everything.
  [[nodiscard]] std::optional<Response> Admit(RateScope scope, std::string_view key);

 private:
  struct Scope {
    Scope(const core::Clock& clock, core::BucketRate rate, std::size_t max_keys,
          core::Counter& refused, std::string noun)
        : buckets(clock, rate, max_keys), refused(refused), noun(std::move(noun)) {}
    core::TokenBuckets buckets;
    core::Counter& refused;
    std::string noun;  // in the message: "too many requests for this <noun>"
  };
  Scope& For(RateScope scope);

  Scope subscriber_;
  Scope address_;
  Scope api_key_;
};

// Whether the address and subscriber limits cover `path`: the browser-facing
// routes, /v1/inbox/… and /v1/unsubscribe… (the signed pages included).
bool IsPublicPath(std::string_view path);

}  // namespace chopar::http
