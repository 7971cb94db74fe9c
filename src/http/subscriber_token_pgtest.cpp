// Subscriber tokens over HTTP against a real database: the token route's
// ttl and its bounds, revocation by the user's token generation, and v1
// tokens until the configured day (docs/api.md "Authentication").

#include <gtest/gtest.h>

#include <chrono>

#include "core/encoding.hpp"
#include "core/time_format.hpp"
#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

std::int64_t UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The expiry written in a v2 token ("v2.<user>.<generation>.<expires>.<sig>").
std::int64_t ExpiryOf(const std::string& token) {
  const auto end = token.rfind('.');
  const auto start = token.rfind('.', end - 1) + 1;
  return std::stoll(token.substr(start, end - start));
}

class SubscriberTokenTest : public HttpServerPgTest {
 protected:
  std::string IssueToken(std::int64_t user, const std::string& query = "") {
    const auto response = client().Get("/v1/users/" + std::to_string(user) + "/token" + query, {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json().value("token", "");
  }
  int UnreadCountStatus(const std::string& token) {
    return client().Get("/v1/inbox/unread-count", {"Authorization: Bearer " + token}).status;
  }
};

TEST_F(SubscriberTokenTest, TtlChoosesTheExpiryWithinItsBounds) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  for (const std::int64_t ttl : {std::int64_t{60}, std::int64_t{3600}, std::int64_t{31'536'000}}) {
    const std::int64_t before = UnixNow();
    const auto response =
        client().Get("/v1/users/1/token?ttl=" + std::to_string(ttl), {kAuth});
    const std::int64_t after = UnixNow();
    ASSERT_EQ(response.status, 200) << response.body;
    const std::string token = response.Json()["token"];
    const std::int64_t expires = ExpiryOf(token);
    EXPECT_GE(expires, before + ttl) << token;
    EXPECT_LE(expires, after + ttl) << token;
    EXPECT_EQ(response.Json()["expires_at"],
              core::FormatRfc3339(core::TimePoint(std::chrono::seconds(expires))));
    EXPECT_EQ(UnreadCountStatus(token), 200);
  }
  // No ttl: 30 days.
  const std::int64_t before = UnixNow();
  const std::int64_t expires = ExpiryOf(IssueToken(1));
  EXPECT_GE(expires, before + 30 * 86400);
  EXPECT_LE(expires, UnixNow() + 30 * 86400);

  for (const std::string bad : {"59", "31536001", "0", "-60", "abc", "", "3600.5"}) {
    const auto refused = client().Get("/v1/users/1/token?ttl=" + bad, {kAuth});
    EXPECT_EQ(refused.status, 400) << bad;
    EXPECT_EQ(refused.Json()["error"]["field"], "ttl") << bad;
    EXPECT_EQ(refused.Json()["error"]["message"], "ttl must be an integer from 60 to 31536000")
        << bad;
  }
}

TEST_F(SubscriberTokenTest, RevokeRefusesEveryEarlierTokenAndNotLaterOnes) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  PutUser(2, {{"email", "dilnoza@example.uz"}});
  const std::string first = IssueToken(1);
  const std::string second = IssueToken(1, "?ttl=600");
  const std::string other_user = IssueToken(2);
  ASSERT_EQ(UnreadCountStatus(first), 200);

  const auto revoked = client().Post("/v1/users/1/token/revoke", "", {kAuth});
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(revoked.Json(), (json{{"token_generation", 1}}));
  for (const std::string& token : {first, second}) {
    const auto refused =
        client().Get("/v1/inbox/unread-count", {"Authorization: Bearer " + token});
    EXPECT_EQ(refused.status, 401);
    EXPECT_EQ(refused.ErrorCode(), "unauthorized");
    EXPECT_EQ(client().Get("/v1/inbox/notifications?token=" + token).status, 401);
  }
  EXPECT_EQ(UnreadCountStatus(other_user), 200) << "another user's tokens are untouched";
  const std::string fresh = IssueToken(1);
  EXPECT_TRUE(fresh.starts_with("v2.1.1.")) << fresh;
  EXPECT_EQ(UnreadCountStatus(fresh), 200);

  EXPECT_EQ(client().Post("/v1/users/1/token/revoke", "", {kAuth}).Json()["token_generation"], 2);
  EXPECT_EQ(UnreadCountStatus(fresh), 401);
  EXPECT_EQ(client().Post("/v1/users/999/token/revoke", "", {kAuth}).ErrorCode(),
            "user_not_found");
  EXPECT_EQ(client().Post("/v1/users/1/token/revoke", "", {}).status, 401) << "needs the API key";
  EXPECT_EQ(client().Post("/v1/users/1/token/revoke", "", {"Authorization: Bearer " + fresh}).status,
            401)
      << "a subscriber token cannot revoke";
}

TEST_F(SubscriberTokenTest, V1TokensWorkThroughTheConfiguredDayOnly) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  // A token as earlier versions issued them.
  const std::string v1 = "1." + core::Base64UrlEncode(core::HmacSha256(kInboxSecret, "1"));

  Settings accepting = DefaultSettings();
  accepting.accept_v1_tokens_until = "2999-12-31";
  StartServer(accepting);
  EXPECT_EQ(UnreadCountStatus(v1), 200);
  // Revoking refuses v1 tokens too: they count as generation 0.
  ASSERT_EQ(client().Post("/v1/users/1/token/revoke", "", {kAuth}).status, 200);
  EXPECT_EQ(UnreadCountStatus(v1), 401);

  PutUser(2, {{"email", "dilnoza@example.uz"}});
  const std::string v1_of_2 = "2." + core::Base64UrlEncode(core::HmacSha256(kInboxSecret, "2"));
  for (const std::string day : {"2020-01-01", ""}) {
    Settings retired = DefaultSettings();
    retired.accept_v1_tokens_until = day;
    StartServer(retired);
    const auto refused =
        client().Get("/v1/inbox/unread-count", {"Authorization: Bearer " + v1_of_2});
    EXPECT_EQ(refused.status, 401) << day;
    EXPECT_NE(refused.Json()["error"]["message"].get<std::string>().find("v1"), std::string::npos)
        << refused.body;
    EXPECT_EQ(UnreadCountStatus(IssueToken(2)), 200) << "v2 tokens are unaffected";
  }
}

}  // namespace
}  // namespace chopar::http::testing
