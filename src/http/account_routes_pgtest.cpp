// Console accounts over HTTP against a real PostgreSQL (docs/api.md
// "Console accounts"): the session cookie and its CSRF token, one answer
// for a wrong email and a wrong password, the throttle's 429, the bootstrap
// key only while no account exists, what a role may call, and the errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "console/accounts.hpp"
#include "http/account_routes.hpp"
#include "http/http_server_fixture.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;
using testing::HttpResult;
using testing::kAuth;

constexpr const char* kPassword = "correct horse battery staple";

// A signed-in session: the Cookie and X-CSRF-Token headers.
struct SessionHeaders {
  std::string cookie;
  std::string csrf;
  [[nodiscard]] std::vector<std::string> Read() const { return {cookie}; }
  [[nodiscard]] std::vector<std::string> Write() const { return {cookie, csrf}; }
};

class AccountRoutesTest : public testing::HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    console::AccountSettings settings;
    settings.bootstrap_key = testing::kApiKey;
    accounts_ = std::make_unique<console::AccountService>(*pool_, clock_, settings);
    StartServer(DefaultSettings());
  }

  void TearDown() override {
    HttpServerPgTest::TearDown();
    accounts_.reset();
  }

  void AddRoutes(Router& router) override {
    if (!accounts_) return;  // the fixture's first server, before SetUp made the service
    RegisterAccountRoutes(router, *accounts_);
    server_->AcceptCredentials({.api_keys = {}, .sessions = SessionResolver(*accounts_)});
  }

  HttpResult SignIn(const json& body) {
    return client().Post("/v1/console/sign-in", body.dump(), {});
  }

  // Signs in, asserting success; the session's headers.
  SessionHeaders SignedIn(const json& body) {
    const auto response = SignIn(body);
    EXPECT_EQ(response.status, 200) << response.body;
    const std::string marker = "chopar_session=";
    const auto start = response.raw_headers.find(marker);
    EXPECT_NE(start, std::string::npos) << response.raw_headers;
    const auto end = response.raw_headers.find(';', start);
    return {"Cookie: " + response.raw_headers.substr(start, end - start),
            "X-CSRF-Token: " + response.Json()["csrf_token"].get<std::string>()};
  }

  void AddAccount(const std::string& email, const std::string& role) {
    const auto response = client().Post(
        "/v1/console/accounts",
        json{{"email", email}, {"role", role}, {"password", kPassword}}.dump(), {kAuth});
    ASSERT_EQ(response.status, 201) << response.body;
  }

  std::unique_ptr<console::AccountService> accounts_;
};

TEST_F(AccountRoutesTest, TheBootstrapKeySignsInUntilAnAccountExists) {
  EXPECT_EQ(client().Get("/v1/console/sign-in").Json()["accounts_exist"], false);
  EXPECT_EQ(SignIn({{"api_key", "wrong"}}).status, 401);
  const auto response = SignIn({{"api_key", testing::kApiKey}});
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_NE(response.raw_headers.find("HttpOnly; Secure; SameSite=Strict; Max-Age=43200"),
            std::string::npos)
      << response.raw_headers;
  EXPECT_TRUE(response.Json()["account"].is_null());
  EXPECT_EQ(response.Json()["role"], "admin");
  const SessionHeaders key_session = SignedIn({{"api_key", testing::kApiKey}});

  // The key's session adds the first account, with its CSRF token only.
  const std::string account =
      json{{"email", "ops@example.uz"}, {"role", "admin"}, {"password", kPassword}}.dump();
  EXPECT_EQ(client().Post("/v1/console/accounts", account, key_session.Read()).status, 403);
  EXPECT_EQ(client()
                .Post("/v1/console/accounts", account,
                      {key_session.cookie, "X-CSRF-Token: not-the-token"})
                .status,
            403);
  EXPECT_EQ(client().Post("/v1/console/accounts", account, key_session.Write()).status, 201);

  EXPECT_EQ(client().Get("/v1/console/sign-in").Json()["accounts_exist"], true);
  const auto refused = SignIn({{"api_key", testing::kApiKey}});
  EXPECT_EQ(refused.status, 401);
  EXPECT_NE(refused.body.find("sign in with an account"), std::string::npos) << refused.body;
  // The bootstrap key still calls the API as a bearer token.
  EXPECT_EQ(client().Get("/v1/console/accounts", {kAuth}).status, 200);
}

TEST_F(AccountRoutesTest, AWrongEmailAndAWrongPasswordAnswerAlike) {
  AddAccount("ops@example.uz", "admin");
  const auto wrong_password = SignIn({{"email", "ops@example.uz"}, {"password", "not it at all"}});
  const auto wrong_email = SignIn({{"email", "nobody@example.uz"}, {"password", kPassword}});
  EXPECT_EQ(wrong_password.status, 401);
  EXPECT_EQ(wrong_email.status, 401);
  EXPECT_EQ(wrong_password.Json()["error"], wrong_email.Json()["error"]);
  EXPECT_EQ(SignIn({{"email", "OPS@example.uz"}, {"password", kPassword}}).status, 200);
}

TEST_F(AccountRoutesTest, TheSixthFailureIsRateLimitedWithRetryAfter) {
  AddAccount("ops@example.uz", "admin");
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(SignIn({{"email", "ops@example.uz"}, {"password", "not it at all"}}).status, 401);
  }
  const auto throttled = SignIn({{"email", "ops@example.uz"}, {"password", kPassword}});
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.ErrorCode(), "rate_limited");
  EXPECT_NE(throttled.raw_headers.find("Retry-After: "), std::string::npos);
}

TEST_F(AccountRoutesTest, ARoleCallsWhatItsScopesAllow) {
  AddAccount("ops@example.uz", "admin");
  AddAccount("viewer@example.uz", "viewer");
  const SessionHeaders viewer = SignedIn({{"email", "viewer@example.uz"}, {"password", kPassword}});
  const auto me = client().Get("/v1/console/session", viewer.Read());
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.Json()["account"]["email"], "viewer@example.uz");
  EXPECT_EQ(me.Json()["role"], "viewer");
  EXPECT_EQ(client().Get("/v1/console/accounts", viewer.Read()).status, 403);
  EXPECT_EQ(client().Get("/v1/console/sessions", viewer.Read()).status, 403);

  const SessionHeaders admin = SignedIn({{"email", "ops@example.uz"}, {"password", kPassword}});
  const auto sessions = client().Get("/v1/console/sessions", admin.Read());
  ASSERT_EQ(sessions.status, 200) << sessions.body;
  ASSERT_EQ(sessions.Json()["items"].size(), 2u);
  EXPECT_FALSE(sessions.Json()["items"][0].contains("csrf_token"));
  const auto viewer_session = sessions.Json()["items"][1]["id"].get<std::int64_t>();
  EXPECT_EQ(client()
                .Post("/v1/console/sessions/" + std::to_string(viewer_session) + "/revoke", "",
                      admin.Write())
                .status,
            204);
  EXPECT_EQ(client().Get("/v1/console/session", viewer.Read()).status, 401);

  EXPECT_EQ(client().Post("/v1/console/sign-out", "", admin.Write()).status, 204);
  EXPECT_EQ(client().Get("/v1/console/accounts", admin.Read()).status, 401);
}

TEST_F(AccountRoutesTest, BadInputUnknownIdsAndTheLastAdmin) {
  AddAccount("ops@example.uz", "admin");
  const auto missing = client().Post("/v1/console/accounts", R"({"role": "admin"})", {kAuth});
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.Json()["error"]["field"], "email");
  const auto role = client().Post(
      "/v1/console/accounts",
      json{{"email", "a@example.uz"}, {"role", "boss"}, {"password", kPassword}}.dump(), {kAuth});
  EXPECT_EQ(role.Json()["error"]["field"], "role");
  const auto password = client().Post(
      "/v1/console/accounts",
      json{{"email", "a@example.uz"}, {"role", "viewer"}, {"password", "short"}}.dump(), {kAuth});
  EXPECT_EQ(password.Json()["error"]["field"], "password");
  EXPECT_EQ(
      client()
          .Post(
              "/v1/console/accounts",
              json{{"email", "OPS@example.uz"}, {"role", "viewer"}, {"password", kPassword}}.dump(),
              {kAuth})
          .status,
      409);
  EXPECT_EQ(client()
                .Request("PATCH", "/v1/console/accounts/999", R"({"role": "viewer"})", {kAuth})
                .status,
            404);
  EXPECT_EQ(client().Delete("/v1/console/accounts/999", {kAuth}).status, 404);
  EXPECT_EQ(client().Post("/v1/console/sessions/999/revoke", "", {kAuth}).status, 404);
  const auto id = accounts_->List().front().id;
  EXPECT_EQ(client().Delete("/v1/console/accounts/" + std::to_string(id), {kAuth}).ErrorCode(),
            "conflict");
  EXPECT_EQ(client()
                .Request("PATCH", "/v1/console/accounts/" + std::to_string(id),
                         R"({"role": "viewer"})", {kAuth})
                .status,
            409);
  EXPECT_EQ(SignIn({{"email", 7}, {"password", kPassword}}).Json()["error"]["field"], "email");
}

}  // namespace
}  // namespace chopar::http
