// Who may call what: the dispatcher checks a credential's scopes, its
// tenant and the route access table before a handler runs, and a console
// session's CSRF token on every state-changing request.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/metrics.hpp"
#include "http/dispatcher.hpp"
#include "http/http_metrics.hpp"
#include "http/router.hpp"

namespace chopar::http {
namespace {

constexpr const char* kBootstrapKey = "bootstrap-key";

// A key of the form POST /v1/api-keys makes ("chopar_" and 43 base64url
// characters), told apart by `name`.
std::string FakeKey(const std::string& name) {
  return "chopar_" + name + std::string(43 - name.size(), 'x');
}

Caller KeyCaller(std::vector<Scope> scopes, std::optional<std::string> tenant = std::nullopt) {
  return Caller{.kind = Caller::Kind::kApiKey,
                .id = 7,
                .name = "a key",
                .scopes = ScopeSet::Granting(scopes),
                .tenant = std::move(tenant),
                .csrf_token = {}};
}

class DispatcherAccessTest : public ::testing::Test {
 protected:
  DispatcherAccessTest()
      : http_metrics_(metrics_),
        dispatcher_(router_, AuthKeys{kBootstrapKey, "secret", std::nullopt, {}, {}},
                    http_metrics_) {
    const auto ok = [](const Request& request) {
      return JsonResponse(200, {{"caller", request.caller ? request.caller->AuditName() : ""}});
    };
    router_.Add("GET", "/v1/users/{id}", Auth::kServerKey, ok);              // read
    router_.Add("PUT", "/v1/users/{id}", Auth::kServerKey, ok);              // manage
    router_.Add("POST", "/v1/notifications", Auth::kServerKey, ok);          // notify
    router_.Add("POST", "/v1/deliveries/{id}/retry", Auth::kServerKey, ok);  // operate
    router_.Add("GET", "/v1/audit", Auth::kServerKey, ok);                   // admin
    router_.Add("GET", "/v1/not-in-the-table", Auth::kServerKey, ok);        // undeclared
    dispatcher_.AcceptCredentials({.api_keys = [](std::string_view key) -> std::optional<Caller> {
                                     if (key == FakeKey("notify"))
                                       return KeyCaller({Scope::kNotify});
                                     if (key == FakeKey("read")) return KeyCaller({Scope::kRead});
                                     if (key == FakeKey("manage"))
                                       return KeyCaller({Scope::kManage});
                                     if (key == FakeKey("admin")) return KeyCaller({Scope::kAdmin});
                                     if (key == FakeKey("tenant"))
                                       return KeyCaller({Scope::kManage, Scope::kNotify}, "acme");
                                     return std::nullopt;
                                   },
                                   .sessions = [](std::string_view token) -> std::optional<Caller> {
                                     if (token != "session-token") return std::nullopt;
                                     return Caller{.kind = Caller::Kind::kAccount,
                                                   .id = 3,
                                                   .name = "viewer@example.com",
                                                   .scopes = ScopeSet::Granting({Scope::kOperate}),
                                                   .tenant = std::nullopt,
                                                   .csrf_token = "csrf-of-the-session"};
                                   }});
  }

  Response Call(const std::string& method, const std::string& path,
                std::map<std::string, std::string> headers) {
    Request request;
    request.method = method;
    request.path = path;
    request.headers = std::move(headers);
    return dispatcher_.Dispatch(request);
  }

  Response WithKey(const std::string& method, const std::string& path, const std::string& key) {
    return Call(method, path, {{"authorization", "Bearer " + key}});
  }

  static std::string Code(const Response& response) {
    return nlohmann::json::parse(response.body)["error"]["code"];
  }

  core::MetricsRegistry metrics_;
  HttpMetrics http_metrics_;
  Router router_;
  Dispatcher dispatcher_;
};

TEST_F(DispatcherAccessTest, EachScopeReachesItsRoutesAndNoOthers) {
  struct Case {
    std::string method, path;
    std::vector<std::pair<std::string, int>> status_by_key;
  };
  const std::vector<Case> cases = {
      {"GET",
       "/v1/users/1",
       {{FakeKey("notify"), 403},
        {FakeKey("read"), 200},
        {FakeKey("manage"), 200},
        {FakeKey("admin"), 200}}},
      {"PUT",
       "/v1/users/1",
       {{FakeKey("notify"), 403},
        {FakeKey("read"), 403},
        {FakeKey("manage"), 200},
        {FakeKey("admin"), 200}}},
      {"POST",
       "/v1/notifications",
       {{FakeKey("notify"), 200},
        {FakeKey("read"), 403},
        {FakeKey("manage"), 403},
        {FakeKey("admin"), 200}}},
      {"POST",
       "/v1/deliveries/1/retry",
       {{FakeKey("notify"), 403},
        {FakeKey("read"), 403},
        {FakeKey("manage"), 200},
        {FakeKey("admin"), 200}}},
      {"GET",
       "/v1/audit",
       {{FakeKey("notify"), 403},
        {FakeKey("read"), 403},
        {FakeKey("manage"), 403},
        {FakeKey("admin"), 200}}},
  };
  for (const auto& c : cases) {
    for (const auto& [key, status] : c.status_by_key) {
      const Response response = WithKey(c.method, c.path, key);
      EXPECT_EQ(response.status, status) << c.method << " " << c.path << " with " << key;
      if (status == 403) {
        EXPECT_EQ(Code(response), "forbidden");
      }
    }
    EXPECT_EQ(WithKey(c.method, c.path, kBootstrapKey).status, 200) << c.path;
  }
}

TEST_F(DispatcherAccessTest, TheRefusalNamesTheMissingScope) {
  const Response response = WithKey("PUT", "/v1/users/1", FakeKey("read"));
  EXPECT_NE(response.body.find("\\\"manage\\\""), std::string::npos) << response.body;
}

TEST_F(DispatcherAccessTest, AnUndeclaredRouteIsRefusedToEveryone) {
  for (const std::string& key : {std::string(kBootstrapKey), FakeKey("admin")}) {
    const Response response = WithKey("GET", "/v1/not-in-the-table", key);
    EXPECT_EQ(response.status, 403) << key;
    EXPECT_NE(response.body.find("route access table"), std::string::npos);
  }
}

TEST_F(DispatcherAccessTest, AKeyConfinedToATenantIsRefusedGlobalRoutes) {
  // Its scope (manage) would allow a retry; the route reaches beyond one
  // tenant (a delivery of any tenant's).
  const Response response = WithKey("POST", "/v1/deliveries/1/retry", FakeKey("tenant"));
  EXPECT_EQ(response.status, 403);
  EXPECT_NE(response.body.find("acme"), std::string::npos) << response.body;
  EXPECT_EQ(WithKey("POST", "/v1/deliveries/1/retry", FakeKey("manage")).status, 200);
}

TEST_F(DispatcherAccessTest, UnknownKeysAreUnauthorized) {
  // Not of the form of a key: refused before the database would be asked.
  EXPECT_EQ(WithKey("GET", "/v1/users/1", "chopar_short").status, 401);
  EXPECT_EQ(WithKey("GET", "/v1/users/1", FakeKey("unknown")).status, 401);
  EXPECT_EQ(WithKey("GET", "/v1/users/1", "").status, 401);
  EXPECT_EQ(Call("GET", "/v1/users/1", {}).status, 401);
}

TEST_F(DispatcherAccessTest, ASessionNeedsItsCsrfTokenToChangeState) {
  const std::string cookie = "theme=dark; chopar_session=session-token";
  EXPECT_EQ(Call("GET", "/v1/users/1", {{"cookie", cookie}}).status, 200);
  const Response without = Call("POST", "/v1/deliveries/1/retry", {{"cookie", cookie}});
  EXPECT_EQ(without.status, 403);
  EXPECT_EQ(Code(without), "forbidden");
  EXPECT_EQ(Call("POST", "/v1/deliveries/1/retry",
                 {{"cookie", cookie}, {"x-csrf-token", "another-sessions-token"}})
                .status,
            403);
  EXPECT_EQ(Call("POST", "/v1/deliveries/1/retry",
                 {{"cookie", cookie}, {"x-csrf-token", "csrf-of-the-session"}})
                .status,
            200);
  // An operator's session: the CSRF token is right, the role is not.
  EXPECT_EQ(
      Call("PUT", "/v1/users/1", {{"cookie", cookie}, {"x-csrf-token", "csrf-of-the-session"}})
          .status,
      403);
  EXPECT_EQ(Call("GET", "/v1/users/1", {{"cookie", "chopar_session=revoked"}}).status, 401);
}

TEST_F(DispatcherAccessTest, CookieValueFindsTheNamedCookie) {
  EXPECT_EQ(CookieValue("a=1; chopar_session=xyz; b=2", "chopar_session"), "xyz");
  EXPECT_EQ(CookieValue("chopar_session=xyz", "chopar_session"), "xyz");
  EXPECT_EQ(CookieValue("not_chopar_session=xyz", "chopar_session"), "");
  EXPECT_EQ(CookieValue("", "chopar_session"), "");
}

}  // namespace
}  // namespace chopar::http
