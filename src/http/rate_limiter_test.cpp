// The rate limits as the dispatcher applies them: which scope counts which
// request, the 429 it answers, and that a refused request never reaches its
// handler (and so never the database).
#include "http/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http/dispatcher.hpp"
#include "http/subscriber_token.hpp"

namespace chopar::http {
namespace {

constexpr const char* kApiKey = "server-key";
constexpr const char* kSecret = "inbox-secret";
// 2100-01-01: the tokens here never expire during a run.
constexpr std::int64_t kFarFuture = 4102444800;
const core::TimePoint kStart{std::chrono::hours(24 * 20000)};

// Limits small enough to reach in a test; almost no refill, so the clock
// decides when buckets refill.
RateLimitSettings Small() {
  return {.subscriber_per_second = 0.5,
          .subscriber_burst = 3,
          .address_per_second = 0.5,
          .address_burst = 10,
          .api_key_per_second = 0,
          .api_key_burst = 0};
}

class RateLimiterTest : public ::testing::Test {
 protected:
  explicit RateLimiterTest(RateLimitSettings settings = Small())
      : limiter_(settings, clock_, metrics_),
        http_metrics_(metrics_),
        dispatcher_(router_, AuthKeys{kApiKey, kSecret, std::nullopt, {}, {}}, http_metrics_,
                    &limiter_) {
    router_.Add("GET", "/v1/inbox/unread-count", Auth::kSubscriber, Counted());
    router_.Add("GET", "/v1/unsubscribe", Auth::kNone, Counted());
    router_.Add("GET", "/v1/users/{id}", Auth::kServerKey, Counted());
    router_.Add("GET", "/healthz", Auth::kNone, Counted());
  }

  Handler Counted() {
    return [this](const Request&) {
      ++handled_;
      return JsonResponse(200, {{"count", 0}});
    };
  }

  Response Call(const std::string& path, const std::string& bearer,
                const std::string& address = "203.0.113.7") {
    Request request;
    request.method = "GET";
    const auto question = path.find('?');
    request.path = path.substr(0, question);
    if (question != std::string::npos) request.raw_query = path.substr(question + 1);
    if (!bearer.empty()) request.headers["authorization"] = "Bearer " + bearer;
    request.client_address = address;
    return dispatcher_.Dispatch(request);
  }

  static std::string Token(std::int64_t user) {
    return MakeSubscriberToken(kSecret, user, 0, kFarFuture);
  }

  static std::optional<std::string> Header(const Response& response, const std::string& name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return std::nullopt;
  }

  std::string RefusedMetric(const std::string& scope) {
    const std::string text = metrics_.Render();
    const std::string series = "chopar_http_rate_limited_total{scope=\"" + scope + "\"} ";
    const auto at = text.find(series);
    if (at == std::string::npos) return "absent";
    return text.substr(at + series.size(), text.find('\n', at) - at - series.size());
  }

  core::SimulatedClock clock_{kStart};
  core::MetricsRegistry metrics_;
  RateLimiter limiter_;
  Router router_;
  HttpMetrics http_metrics_;
  Dispatcher dispatcher_;
  int handled_ = 0;
};

TEST_F(RateLimiterTest, ASubscriberOverItsBurstGets429WithRetryAfterAndNoHandlerRuns) {
  int refused = 0;
  for (int i = 0; i < 8; ++i) {
    const Response response = Call("/v1/inbox/unread-count", Token(1));
    if (response.status == 429) {
      ++refused;
      EXPECT_EQ(Header(response, "Retry-After"), "2") << "one token at 0.5 per second";
      const auto body = nlohmann::json::parse(response.body);
      EXPECT_EQ(body["error"]["code"], "rate_limited");
      EXPECT_TRUE(body["error"]["field"].is_null());
      EXPECT_EQ(Header(response, "Access-Control-Allow-Origin"), "*") << "a browser reads it";
      EXPECT_EQ(Header(response, "Access-Control-Expose-Headers"), "Retry-After");
    } else {
      EXPECT_EQ(response.status, 200);
    }
  }
  EXPECT_EQ(refused, 5);
  EXPECT_EQ(handled_, 3) << "a refused request never reaches its handler";
  EXPECT_EQ(RefusedMetric("subscriber"), "5");
  EXPECT_EQ(RefusedMetric("address"), "0");
  EXPECT_EQ(RefusedMetric("api_key"), "0");

  clock_.Advance(std::chrono::seconds(2));
  EXPECT_EQ(Call("/v1/inbox/unread-count", Token(1)).status, 200) << "refilled";
}

TEST_F(RateLimiterTest, SubscribersAreCountedApart) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Call("/v1/inbox/unread-count", Token(1)).status, 200);
  EXPECT_EQ(Call("/v1/inbox/unread-count", Token(1)).status, 429);
  EXPECT_EQ(Call("/v1/inbox/unread-count", Token(2)).status, 200);
}

TEST_F(RateLimiterTest, AnAddressIsLimitedBeforeItsCredentialsAreChecked) {
  int unauthorized = 0;
  for (int i = 0; i < 10; ++i) {
    unauthorized += Call("/v1/inbox/unread-count", "1.forged").status == 401 ? 1 : 0;
  }
  EXPECT_EQ(unauthorized, 10);
  const Response refused = Call("/v1/inbox/unread-count", "1.forged");
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(Header(refused, "Retry-After"), "2");
  EXPECT_EQ(Call("/v1/inbox/unread-count", Token(1)).status, 429) << "the same address";
  EXPECT_EQ(Call("/v1/inbox/unread-count", Token(1), "198.51.100.1").status, 200)
      << "another address";
  EXPECT_EQ(RefusedMetric("address"), "2");
}

TEST_F(RateLimiterTest, ForgedUnsubscribeLinksAreLimitedPerAddress) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(Call("/v1/unsubscribe?user=" + std::to_string(i) + "&sig=x", "").status, 200);
  }
  EXPECT_EQ(Call("/v1/unsubscribe?user=99&sig=x", "").status, 429);
  EXPECT_EQ(handled_, 10);
}

TEST_F(RateLimiterTest, ServerRoutesAreNotCountedByAddressAndTheApiKeyLimitIsOffByDefault) {
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Call("/v1/users/1", kApiKey).status, 200);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Call("/healthz", "").status, 200);
  EXPECT_EQ(Call("/v1/unsubscribe?user=1&sig=x", "").status, 200) << "the address is untouched";
}

class ApiKeyLimitTest : public RateLimiterTest {
 protected:
  ApiKeyLimitTest()
      : RateLimiterTest({.subscriber_per_second = 0,
                         .subscriber_burst = 0,
                         .address_per_second = 0,
                         .address_burst = 0,
                         .api_key_per_second = 10,
                         .api_key_burst = 20}) {}
};

TEST_F(ApiKeyLimitTest, EveryCallWithTheKeySharesOneBucket) {
  int admitted = 0;
  for (int i = 0; i < 30; ++i) {
    const std::string address = "192.0.2." + std::to_string(i);
    admitted += Call("/v1/users/1", kApiKey, address).status == 200 ? 1 : 0;
  }
  EXPECT_EQ(admitted, 20);
  EXPECT_EQ(RefusedMetric("api_key"), "10");
  const Response refused = Call("/v1/users/1", kApiKey);
  EXPECT_EQ(Header(refused, "Retry-After"), "1");
  EXPECT_EQ(Call("/v1/users/1", "wrong-key").status, 401) << "a wrong key takes nothing";
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(Call("/v1/inbox/unread-count", Token(1)).status, 200) << "subscriber limit off";
  }
}

TEST(PublicPathTest, InboxAndUnsubscribeRoutes) {
  EXPECT_TRUE(IsPublicPath("/v1/inbox/unread-count"));
  EXPECT_TRUE(IsPublicPath("/v1/inbox/stream"));
  EXPECT_TRUE(IsPublicPath("/v1/unsubscribe"));
  EXPECT_TRUE(IsPublicPath("/v1/unsubscribe/preferences"));
  EXPECT_FALSE(IsPublicPath("/v1/unsubscribed"));
  EXPECT_FALSE(IsPublicPath("/v1/users/1/notifications/unread-count"));
  EXPECT_FALSE(IsPublicPath("/metrics"));
}

}  // namespace
}  // namespace chopar::http
