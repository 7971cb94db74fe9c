#include "http/router.hpp"

#include <gtest/gtest.h>

#include <tuple>

#include "core/metrics.hpp"
#include "core/request_error.hpp"
#include "db/errors.hpp"
#include "http/dispatcher.hpp"
#include "http/subscriber_token.hpp"

namespace chopar::http {
namespace {

using Outcome = Router::Match::Outcome;

Handler Named(std::string name) {
  return [name](const Request&) { return JsonResponse(200, {{"handler", name}}); };
}

TEST(RouterTest, MatchesLiteralsAndIds) {
  Router router;
  router.Add("GET", "/v1/users/{id}", Auth::kNone, Named("user"));
  router.Add("GET", "/v1/users/{id}/push-subscriptions/{sub_id}", Auth::kNone, Named("sub"));
  auto match = router.Find("GET", "/v1/users/42");
  ASSERT_EQ(match.outcome, Outcome::kFound);
  EXPECT_EQ(match.route->pattern, "/v1/users/{id}");
  EXPECT_EQ(match.raw_params, (std::vector<std::string>{"42"}));
  match = router.Find("GET", "/v1/users/42/push-subscriptions/7");
  ASSERT_EQ(match.outcome, Outcome::kFound);
  EXPECT_EQ(match.raw_params, (std::vector<std::string>{"42", "7"}));
}

TEST(RouterTest, IdSegmentsMustBeDigits) {
  Router router;
  router.Add("GET", "/v1/users/{id}", Auth::kNone, Named("user"));
  for (const char* path : {"/v1/users/abc", "/v1/users/-1", "/v1/users/", "/v1/users/1x",
                           "/v1/users/1/", "/v1/users", "/v1/users/1/extra", "//v1/users/1"}) {
    EXPECT_EQ(router.Find("GET", path).outcome, Outcome::kNotFound) << path;
  }
}

TEST(RouterTest, LiteralWinsOverParameter) {
  Router router;
  router.Add("GET", "/v1/notifications/{id}", Auth::kNone, Named("get"));
  router.Add("POST", "/v1/notifications/batch", Auth::kNone, Named("batch"));
  router.Add("GET", "/v1/things/{key:str}", Auth::kNone, Named("thing"));
  router.Add("GET", "/v1/things/special", Auth::kNone, Named("special"));
  EXPECT_EQ(router.Find("POST", "/v1/notifications/batch").route->pattern,
            "/v1/notifications/batch");
  EXPECT_EQ(router.Find("GET", "/v1/things/special").route->pattern, "/v1/things/special");
  EXPECT_EQ(router.Find("GET", "/v1/things/other").route->pattern, "/v1/things/{key:str}");
  // "batch" is not an id, so GET has no route there, only POST.
  const auto match = router.Find("GET", "/v1/notifications/batch");
  EXPECT_EQ(match.outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(match.allowed_methods, (std::vector<std::string>{"POST"}));
}

TEST(RouterTest, RootPatternMatchesOnlyTheRoot) {
  Router router;
  router.Add("GET", "/", Auth::kNone, Named("root"));
  router.Add("GET", "/widget/chopar-bell.js", Auth::kNone, Named("bell"));
  EXPECT_EQ(router.Find("GET", "/").route->pattern, "/");
  EXPECT_EQ(router.Find("GET", "/widget/chopar-bell.js").route->pattern, "/widget/chopar-bell.js");
  for (const char* path : {"//", "/x", "/widget/", "/widget"}) {
    EXPECT_EQ(router.Find("GET", path).outcome, Outcome::kNotFound) << path;
  }
}

TEST(RouterTest, WrongMethodListsTheAllowedOnes) {
  Router router;
  router.Add("PUT", "/v1/users/{id}/telegram", Auth::kNone, Named("put"));
  router.Add("DELETE", "/v1/users/{id}/telegram", Auth::kNone, Named("delete"));
  const auto match = router.Find("POST", "/v1/users/5/telegram");
  EXPECT_EQ(match.outcome, Outcome::kMethodNotAllowed);
  EXPECT_EQ(match.allowed_methods, (std::vector<std::string>{"DELETE", "PUT"}));
}

TEST(RouterTest, RefusesBadPatternsAndDuplicates) {
  Router router;
  EXPECT_THROW(router.Add("GET", "v1/x", Auth::kNone, Named("x")), std::invalid_argument);
  EXPECT_THROW(router.Add("GET", "/v1//x", Auth::kNone, Named("x")), std::invalid_argument);
  EXPECT_THROW(router.Add("GET", "/v1/{}", Auth::kNone, Named("x")), std::invalid_argument);
  EXPECT_THROW(router.Add("GET", "/v1/{id:float}", Auth::kNone, Named("x")), std::invalid_argument);
  EXPECT_THROW(router.Add("GET", "/v1/a{id}", Auth::kNone, Named("x")), std::invalid_argument);
  router.Add("GET", "/v1/x", Auth::kNone, Named("x"));
  EXPECT_THROW(router.Add("GET", "/v1/x", Auth::kNone, Named("x")), std::invalid_argument);
}

// ---- Dispatcher: routing, authentication and the one error mapping --------

constexpr const char* kApiKey = "server-key";
constexpr const char* kSecret = "inbox-secret";

class DispatcherTest : public ::testing::Test {
 protected:
  DispatcherTest()
      : http_metrics_(metrics_),
        dispatcher_(router_, AuthKeys{kApiKey, kSecret, std::nullopt, {}, {}}, http_metrics_) {
    router_.Add("GET", "/open", Auth::kNone, Named("open"));
    router_.Add("GET", "/v1/users/{id}", Auth::kServerKey, [](const Request& request) {
      return JsonResponse(200, {{"id", request.Id("id")}});
    });
    // A route of the route access table (a test's own would be refused).
    router_.Add("GET", "/v1/templates/{type:str}", Auth::kServerKey, [](const Request& request) {
      return JsonResponse(200, {{"key", request.String("type")}});
    });
    router_.Add("GET", "/v1/inbox/whoami", Auth::kSubscriber, [](const Request& request) {
      return JsonResponse(
          200, {{"user", *request.subscriber}, {"q", request.query.Get("q").value_or("")}});
    });
    router_.Add("POST", "/throw", Auth::kNone,
                [this](const Request&) -> Response { std::rethrow_exception(to_throw_); });
  }

  Response Call(std::string method, std::string target,
                std::map<std::string, std::string> headers = {}) {
    Request request;
    request.method = std::move(method);
    const auto question = target.find('?');
    request.path = target.substr(0, question);
    if (question != std::string::npos) request.raw_query = target.substr(question + 1);
    request.headers = std::move(headers);
    return dispatcher_.Dispatch(request);
  }

  static nlohmann::json Body(const Response& response) {
    return nlohmann::json::parse(response.body);
  }

  static std::map<std::string, std::string> ServerKey() {
    return {{"authorization", std::string("Bearer ") + kApiKey}};
  }

  Response Throwing(std::exception_ptr error) {
    to_throw_ = error;
    return Call("POST", "/throw");
  }

  Router router_;
  core::MetricsRegistry metrics_;
  HttpMetrics http_metrics_;
  Dispatcher dispatcher_;
  std::exception_ptr to_throw_;
};

TEST_F(DispatcherTest, UnknownRouteIsNotFoundJson) {
  const auto response = Call("GET", "/nowhere");
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_EQ(Body(response)["error"]["code"], "not_found");
  EXPECT_TRUE(Body(response)["error"]["field"].is_null());
}

TEST_F(DispatcherTest, WrongMethodIs405WithAllow) {
  const auto response = Call("DELETE", "/open");
  EXPECT_EQ(response.status, 405);
  EXPECT_EQ(Body(response)["error"]["code"], "method_not_allowed");
  ASSERT_EQ(response.headers.size(), 1u);
  EXPECT_EQ(response.headers[0], (std::pair<std::string, std::string>{"Allow", "GET"}));
}

TEST_F(DispatcherTest, ServerRoutesNeedTheApiKey) {
  for (const auto& headers : std::vector<std::map<std::string, std::string>>{
           {},
           {{"authorization", "Bearer wrong"}},
           {{"authorization", "server-key"}},
           {{"authorization", "Basic server-key"}},
           {{"authorization", "Bearer "}},
           {{"authorization", "Bearer server-key-and-more"}},
       }) {
    const auto response = Call("GET", "/v1/users/1", headers);
    EXPECT_EQ(response.status, 401);
    EXPECT_EQ(Body(response)["error"]["code"], "unauthorized");
  }
  EXPECT_EQ(Call("GET", "/v1/users/1", ServerKey()).status, 200);
  EXPECT_EQ(Call("GET", "/v1/users/1", {{"authorization", "bearer server-key"}}).status, 200);
}

TEST_F(DispatcherTest, AnEmptyApiKeyAcceptsNobody) {
  Dispatcher open_dispatcher(router_, AuthKeys{"", kSecret, std::nullopt, {}, {}}, http_metrics_);
  Request request;
  request.method = "GET";
  request.path = "/v1/users/1";
  request.headers = {{"authorization", "Bearer "}};
  EXPECT_EQ(open_dispatcher.Dispatch(request).status, 401);
}

TEST_F(DispatcherTest, IdsMustBePositiveInt64) {
  EXPECT_EQ(Body(Call("GET", "/v1/users/9223372036854775807", ServerKey()))["id"],
            9223372036854775807LL);
  for (const char* id : {"0", "00", "9223372036854775808", "99999999999999999999"}) {
    const auto response = Call("GET", std::string("/v1/users/") + id, ServerKey());
    EXPECT_EQ(response.status, 400) << id;
    EXPECT_EQ(Body(response)["error"]["code"], "invalid_field");
    EXPECT_EQ(Body(response)["error"]["field"], "id");
  }
  EXPECT_EQ(Call("GET", "/v1/users/abc", ServerKey()).status, 404);
}

TEST_F(DispatcherTest, StringParametersArePercentDecoded) {
  EXPECT_EQ(Body(Call("GET", "/v1/templates/pill%2D17", ServerKey()))["key"], "pill-17");
  EXPECT_EQ(Call("GET", "/v1/templates/pill%zz", ServerKey()).status, 400);
}

TEST_F(DispatcherTest, NulInAStringParameterIsRefusedNamingIt) {
  const auto response = Call("GET", "/v1/templates/pill%0017", ServerKey());
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(Body(response)["error"]["field"], "type");
}

TEST_F(DispatcherTest, SubscriberTokenAsBearerOrQuery) {
  const std::string token = MakeSubscriberToken(kSecret, 42, 0, 4'102'444'800);
  auto response = Call("GET", "/v1/inbox/whoami", {{"authorization", "Bearer " + token}});
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(Body(response)["user"], 42);
  response = Call("GET", "/v1/inbox/whoami?q=x%20y&token=" + token);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(Body(response)["user"], 42);
  EXPECT_EQ(Body(response)["q"], "x y");
}

TEST_F(DispatcherTest, BadSubscriberTokensAreUnauthorized) {
  const std::string other_secret_token = MakeSubscriberToken("other", 42, 0, 4'102'444'800);
  for (const std::string& target : std::vector<std::string>{
           "/v1/inbox/whoami", "/v1/inbox/whoami?token=", "/v1/inbox/whoami?token=42.abc",
           "/v1/inbox/whoami?token=" + other_secret_token}) {
    EXPECT_EQ(Call("GET", target).status, 401) << target;
  }
  // The API key is not a subscriber token.
  EXPECT_EQ(Call("GET", "/v1/inbox/whoami", ServerKey()).status, 401);
  // A subscriber token is not the API key.
  EXPECT_EQ(
      Call("GET", "/v1/users/42",
           {{"authorization", "Bearer " + MakeSubscriberToken(kSecret, 42, 0, 4'102'444'800)}})
          .status,
      401);
}

TEST_F(DispatcherTest, InboxRoutesAllowCrossOriginBrowsers) {
  const auto response = Call("GET", "/v1/inbox/whoami");
  EXPECT_NE(std::find(response.headers.begin(), response.headers.end(),
                      std::pair<std::string, std::string>{"Access-Control-Allow-Origin", "*"}),
            response.headers.end());
  const auto preflight = Call("OPTIONS", "/v1/inbox/whoami");
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(Call("OPTIONS", "/v1/users/1").status, 405);
}

TEST_F(DispatcherTest, RequestErrorKeepsStatusCodeAndField) {
  const auto response = Throwing(std::make_exception_ptr(core::UserNotFound(7)));
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(Body(response)["error"]["code"], "user_not_found");
  EXPECT_EQ(Body(response)["error"]["field"], "user_id");
  EXPECT_EQ(Body(response)["error"]["message"], "user 7 does not exist");
}

// The codes and statuses of docs/api.md "Conventions" (and invalid_callback).
TEST_F(DispatcherTest, EachErrorCodeMapsToItsStatusAndName) {
  using core::ErrorCode;
  const std::vector<std::tuple<ErrorCode, int, std::string>> cases = {
      {ErrorCode::kBadRequest, 400, "bad_request"},
      {ErrorCode::kInvalidJson, 400, "invalid_json"},
      {ErrorCode::kInvalidField, 400, "invalid_field"},
      {ErrorCode::kInvalidCallback, 400, "invalid_callback"},
      {ErrorCode::kUnauthorized, 401, "unauthorized"},
      {ErrorCode::kForbidden, 403, "forbidden"},
      {ErrorCode::kNotFound, 404, "not_found"},
      {ErrorCode::kUserNotFound, 404, "user_not_found"},
      {ErrorCode::kMethodNotAllowed, 405, "method_not_allowed"},
      {ErrorCode::kConflict, 409, "conflict"},
      {ErrorCode::kErasurePending, 409, "erasure_pending"},
      {ErrorCode::kInUse, 409, "in_use"},
      {ErrorCode::kPayloadTooLarge, 413, "payload_too_large"},
      {ErrorCode::kHeadersTooLarge, 431, "headers_too_large"},
      {ErrorCode::kRateLimited, 429, "rate_limited"},
      {ErrorCode::kUnavailable, 503, "unavailable"},
  };
  for (const auto& [code, status, name] : cases) {
    const auto response =
        Throwing(std::make_exception_ptr(core::RequestError(code, "what happened", "field")));
    EXPECT_EQ(response.status, status) << name;
    EXPECT_EQ(Body(response)["error"],
              (nlohmann::json{{"code", name}, {"message", "what happened"}, {"field", "field"}}));
  }
  const auto without_field = Throwing(std::make_exception_ptr(core::NotFound("gone")));
  EXPECT_TRUE(Body(without_field)["error"]["field"].is_null());
}

TEST_F(DispatcherTest, EachExceptionTypeMapsToItsStatus) {
  struct Case {
    std::exception_ptr error;
    int status;
    std::string code;
    std::string retry_after = "";  // the Retry-After header; "": none
  };
  std::exception_ptr parse_error;
  try {
    const auto never = nlohmann::json::parse("{nope");
    ADD_FAILURE() << never.dump();
  } catch (...) {
    parse_error = std::current_exception();
  }
  const std::vector<Case> cases = {
      {parse_error, 400, "invalid_json"},
      {std::make_exception_ptr(db::CheckViolation("23514", "link_check")), 400, "invalid_field"},
      {std::make_exception_ptr(db::PoolTimeout("no connection")), 503, "unavailable", "1"},
      {std::make_exception_ptr(db::SerializationFailure("40001", "could not serialize")), 503,
       "unavailable", "1"},
      {std::make_exception_ptr(db::SerializationFailure("40P01", "deadlock detected")), 503,
       "unavailable", "1"},
      {std::make_exception_ptr(db::LockNotAvailable("55P03", "lock timeout")), 503, "unavailable",
       "1"},
      {std::make_exception_ptr(db::QueryCanceled("57014", "statement timeout")), 503, "unavailable",
       "1"},
      {std::make_exception_ptr(db::ConnectionError("", "gone")), 503, "unavailable", "5"},
      {std::make_exception_ptr(db::ConnectionError("57P01", "admin shutdown")), 503, "unavailable",
       "5"},
      {std::make_exception_ptr(db::InsufficientResources("53100", "No space left on device")), 503,
       "unavailable", "30"},
      {std::make_exception_ptr(db::UniqueViolation("23505", "dup")), 500, "internal"},
      {std::make_exception_ptr(std::runtime_error("secret detail")), 500, "internal"},
      {std::make_exception_ptr(42), 500, "internal"},
  };
  for (const auto& c : cases) {
    const auto response = Throwing(c.error);
    EXPECT_EQ(response.status, c.status) << c.code;
    EXPECT_EQ(Body(response)["error"]["code"], c.code);
    EXPECT_EQ(response.body.find("secret detail"), std::string::npos);
    std::string retry_after;
    for (const auto& [name, value] : response.headers) {
      if (name == "Retry-After") retry_after = value;
    }
    EXPECT_EQ(retry_after, c.retry_after) << c.code << " " << c.status;
  }
}

TEST_F(DispatcherTest, CountsRequestsByRouteAndStatus) {
  auto& counter = metrics_.GetCounter("chopar_http_requests_total", "",
                                      {{"route", "/v1/users/{id}"}, {"status", "401"}});
  const double before = counter.Value();
  Call("GET", "/v1/users/3");
  Call("GET", "/v1/users/4");
  EXPECT_EQ(counter.Value(), before + 2);
  EXPECT_NE(metrics_.Render().find(
                "chopar_http_request_duration_seconds_bucket{route=\"/v1/users/{id}\""),
            std::string::npos);
}

TEST(BearerTokenTest, ParsesTheScheme) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bEaReR  abc "), "abc");
  EXPECT_EQ(BearerToken("Bearer"), "");
  EXPECT_EQ(BearerToken("Basic abc"), "");
  EXPECT_EQ(BearerToken("Bearerabc"), "");
}

}  // namespace
}  // namespace chopar::http
