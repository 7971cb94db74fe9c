// [limits.http] on the built binary: a subscriber token or a client address
// that floods the public routes gets 429 with Retry-After, counted in
// /metrics, while others are served.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "blackbox_support.hpp"

namespace chopar {
namespace {

using json = nlohmann::json;
using testing::WaitUntil;
using namespace std::chrono_literals;

constexpr const char* kApiKey = "limits-key";

// The value of the series `name` (with its labels) in a /metrics text; -1
// when absent.
double Metric(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

class RateLimits : public testing::ServeBlackBox {
 protected:
  RateLimits() : ServeBlackBox(kApiKey) {}

  // A GET without the API key, with `headers`.
  net::HttpResponse Get(const std::string& path, std::vector<std::string> headers = {}) {
    net::HttpRequest request;
    request.method = "GET";
    request.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    request.headers = std::move(headers);
    request.timeout = 10s;
    return client_.Perform(request);
  }

  std::string Token(int user) {
    const auto put = api_->Call("PUT", "/v1/users/" + std::to_string(user),
                                {{"email", "u" + std::to_string(user) + "@example.uz"}});
    EXPECT_EQ(put.status, 200) << put.body;
    return json::parse(api_->Call("GET", "/v1/users/" + std::to_string(user) + "/token").body)
        .at("token");
  }

  double Refused(const std::string& scope) {
    return Metric(api_->Call("GET", "/metrics").body,
                  "chopar_http_rate_limited_total{scope=\"" + scope + "\"}");
  }

  net::HttpClient client_;
};

TEST_F(RateLimits, AnUnreadCountFloodOfOneSubscriberGets429WithRetryAfter) {
  auto serve = StartServe("serve.log");  // the default limits
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  const std::string flooder = "Authorization: Bearer " + Token(1);
  const std::string other = "Authorization: Bearer " + Token(2);

  int ok = 0, refused = 0;
  std::optional<net::HttpResponse> first_refusal;
  for (int i = 0; i < 300; ++i) {
    auto response = Get("/v1/inbox/unread-count", {flooder});
    if (response.status == 200) {
      ++ok;
    } else {
      ASSERT_EQ(response.status, 429) << response.body;
      if (!first_refusal) first_refusal = std::move(response);
      ++refused;
    }
  }
  ASSERT_GT(refused, 0) << "300 requests of one subscriber were all answered 200";
  EXPECT_GE(ok, 100) << "the burst (subscriber_burst = 100) is served";
  ASSERT_TRUE(first_refusal->headers.contains("retry-after"));
  EXPECT_GE(std::stoi(first_refusal->headers.at("retry-after")), 1);
  const json body = json::parse(first_refusal->body);
  EXPECT_EQ(body["error"]["code"], "rate_limited") << first_refusal->body;
  EXPECT_EQ(first_refusal->headers.at("access-control-allow-origin"), "*");

  EXPECT_EQ(Get("/v1/inbox/unread-count", {other}).status, 200) << "another subscriber is served";
  EXPECT_EQ(api_->Call("GET", "/v1/users/1").status, 200) << "the API key is not limited";
  EXPECT_EQ(Refused("subscriber"), refused);
  EXPECT_EQ(Refused("address"), 0);
}

TEST_F(RateLimits, AFloodOfForgedUnsubscribeLinksFromOneAddressGets429) {
  // A small address limit that hardly refills during the test.
  auto serve = StartServe("serve.log", {{"CHOPAR_LIMITS_HTTP_ADDRESS_PER_SECOND", "0.01"},
                                        {"CHOPAR_LIMITS_HTTP_ADDRESS_BURST", "50"}});
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  const std::string token = Token(1);

  int forbidden = 0, refused = 0;
  for (int i = 0; i < 200; ++i) {
    const auto response = Get("/v1/unsubscribe?user=" + std::to_string(1 + i % 7) +
                              "&category=tasks&channel=email&sig=forged" + std::to_string(i));
    if (response.status == 403) {
      ++forbidden;
    } else {
      ASSERT_EQ(response.status, 429) << response.body;
      EXPECT_GE(std::stoi(response.headers.at("retry-after")), 1);
      ++refused;
    }
  }
  EXPECT_GT(refused, 0) << "200 forged links from one address were all answered";
  EXPECT_GE(forbidden, 50) << "the burst is answered";
  EXPECT_EQ(forbidden + refused, 200);
  // The address is spent for every public route, whoever's token it shows.
  EXPECT_EQ(Get("/v1/inbox/unread-count", {"Authorization: Bearer " + token}).status, 429);
  EXPECT_EQ(Get("/v1/unsubscribe/preferences?user=1&sig=x").status, 429);
  EXPECT_EQ(api_->Call("GET", "/v1/users/1").status, 200) << "server routes are not by address";
  EXPECT_EQ(Refused("address"), refused + 2);
}

TEST_F(RateLimits, TheApiKeyLimitWhenConfigured) {
  auto serve = StartServe("serve.log", {{"CHOPAR_LIMITS_HTTP_API_KEY_PER_SECOND", "0.01"},
                                        {"CHOPAR_LIMITS_HTTP_API_KEY_BURST", "5"}});
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  int ok = 0;
  for (int i = 0; i < 10; ++i) {
    const auto response = api_->Call("GET", "/v1/users/1");
    ok += response.status != 429 ? 1 : 0;
    if (response.status == 429) {
      EXPECT_GE(std::stoi(response.headers.at("retry-after")), 1);
    }
  }
  EXPECT_EQ(ok, 5);
  EXPECT_TRUE(api_->Healthy()) << "/healthz takes no API key";
}

}  // namespace
}  // namespace chopar
