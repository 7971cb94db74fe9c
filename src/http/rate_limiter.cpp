#include "http/rate_limiter.hpp"

#include "http/error_response.hpp"

namespace chopar::http {
namespace {

constexpr const char* kRefusedName = "chopar_http_rate_limited_total";
constexpr const char* kRefusedHelp = "HTTP requests refused with 429 by [limits.http], by scope";

core::Counter& Refused(core::MetricsRegistry& registry, const char* scope) {
  return registry.GetCounter(kRefusedName, kRefusedHelp, {{"scope", scope}});
}

}  // namespace

RateLimiter::RateLimiter(const RateLimitSettings& settings, const core::Clock& clock,
                         core::MetricsRegistry& registry, std::size_t max_keys)
    : subscriber_(clock, {settings.subscriber_per_second, settings.subscriber_burst}, max_keys,
                  Refused(registry, "subscriber"), "subscriber"),
      address_(clock, {settings.address_per_second, settings.address_burst}, max_keys,
               Refused(registry, "address"), "client address"),
      api_key_(clock, {settings.api_key_per_second, settings.api_key_burst}, max_keys,
               Refused(registry, "api_key"), "API key") {}

RateLimiter::Scope& RateLimiter::For(RateScope scope) {
  switch (scope) {
    case RateScope::kSubscriber:
      return subscriber_;
    case RateScope::kAddress:
      return address_;
    case RateScope::kApiKey:
      break;
  }
  return api_key_;
}

std::optional<Response> RateLimiter::Admit(RateScope scope, std::string_view key) {
  Scope& limits = For(scope);
  const core::Admission admission = limits.buckets.TryTake(key);
  if (admission.admitted) return std::nullopt;
  limits.refused.Inc();
  const auto retry_after = core::RetryAfterSeconds(admission.retry_after).count();
  ErrorInfo error = ToErrorInfo(core::RequestError(
      core::ErrorCode::kRateLimited, "too many requests for this " + limits.noun +
                                         "; retry in " + std::to_string(retry_after) + " s"));
  error.retry_after = std::chrono::seconds(retry_after);
  return error.ToResponse();
}

bool IsPublicPath(std::string_view path) {
  return path.starts_with("/v1/inbox/") || path == "/v1/unsubscribe" ||
         path.starts_with("/v1/unsubscribe/");
}

}  // namespace chopar::http
