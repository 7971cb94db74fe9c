// Console accounts, sign-in and sessions (docs/api.md "Console accounts").
#include "http/account_routes.hpp"

#include "core/request_error.hpp"
#include "http/account_view.hpp"
#include "http/dispatcher.hpp"
#include "http/error_response.hpp"
#include "http/message.hpp"

namespace chopar::http {
namespace {

std::string SessionCookie(std::string_view token, std::chrono::seconds max_age) {
  return std::string(kSessionCookie) + "=" + std::string(token) +
         "; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=" + std::to_string(max_age.count());
}

// The token of the request's session cookie, or empty.
std::string_view CookieToken(const Request& request) {
  const auto cookie = request.Header("cookie");
  return cookie ? CookieValue(*cookie, kSessionCookie) : std::string_view();
}

std::string StringField(const nlohmann::json& body, const char* name) {
  const auto it = body.find(name);
  if (it == body.end() || !it->is_string()) {
    throw core::InvalidField(name, std::string(name) + " must be a string");
  }
  return it->get<std::string>();
}

console::Role RoleField(const nlohmann::json& body) {
  const auto role = console::ParseRole(StringField(body, "role"));
  if (!role) throw core::InvalidField("role", "role must be admin, operator or viewer");
  return *role;
}

Response Throttled(std::chrono::seconds retry_after) {
  ErrorInfo info = ToErrorInfo(core::RequestError(
      core::ErrorCode::kRateLimited, "too many failed sign-ins; try again in " +
                                         std::to_string(retry_after.count()) + " seconds"));
  info.retry_after = retry_after;
  return info.ToResponse();
}

struct SignInState {
  console::AccountService& accounts;
  Response operator()(const Request&) const {
    return JsonResponse(200, {{"accounts_exist", accounts.AnyExists()}});
  }
};

struct SignIn {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    const nlohmann::json body = ParseJsonObject(request);
    const std::string user_agent(request.Header("user-agent").value_or(""));
    console::SignInOutcome outcome;
    if (body.contains("api_key")) {
      outcome =
          accounts.SignInWithKey(StringField(body, "api_key"), request.client_address, user_agent);
    } else {
      console::SignInAttempt attempt{.email = StringField(body, "email"),
                                     .password = StringField(body, "password"),
                                     .address = request.client_address,
                                     .user_agent = user_agent};
      if (attempt.password.size() > console::kMaxPasswordBytes) {
        throw core::InvalidField("password", "password must be at most 1024 bytes long");
      }
      outcome = accounts.SignIn(attempt);
    }
    switch (outcome.kind) {
      case console::SignInOutcome::Kind::kThrottled:
        return Throttled(outcome.retry_after);
      case console::SignInOutcome::Kind::kRefused:
        if (outcome.accounts_exist) {
          throw core::Unauthorized(
              "console accounts exist: sign in with an account's email and password");
        }
        throw core::Unauthorized(body.contains("api_key") ? "wrong api_key"
                                                          : "wrong email or password");
      case console::SignInOutcome::Kind::kSignedIn:
        break;
    }
    Response response = JsonResponse(200, SignedInView(outcome.session->session));
    response.headers.emplace_back(
        "Set-Cookie", SessionCookie(outcome.session->token, accounts.settings().session_lifetime));
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  }
};

struct SignOut {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    const std::string_view token = CookieToken(request);
    if (!token.empty()) accounts.RevokeToken(token);
    Response response = NoContentResponse();
    response.headers.emplace_back("Set-Cookie", SessionCookie("", std::chrono::seconds(0)));
    return response;
  }
};

struct CurrentSession {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    const std::string_view token = CookieToken(request);
    const auto session = token.empty() ? std::nullopt : accounts.Resolve(token);
    if (!session) {
      throw core::Unauthorized("no console session: sign in with POST /v1/console/sign-in");
    }
    Response response = JsonResponse(200, SignedInView(*session));
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  }
};

struct ListAccounts {
  console::AccountService& accounts;
  Response operator()(const Request&) const {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& account : accounts.List()) items.push_back(AccountView(account));
    return JsonResponse(200, {{"items", std::move(items)}});
  }
};

struct AddAccount {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    const nlohmann::json body = ParseJsonObject(request);
    const console::NewAccount account{.email = StringField(body, "email"),
                                      .role = RoleField(body),
                                      .password = StringField(body, "password")};
    return JsonResponse(201, AccountView(accounts.Add(account)));
  }
};

struct ChangeRole {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    const console::Role role = RoleField(ParseJsonObject(request));
    return JsonResponse(200, AccountView(accounts.ChangeRole(request.Id("id"), role)));
  }
};

struct DeleteAccount {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    accounts.Delete(request.Id("id"));
    return NoContentResponse();
  }
};

struct ListSessions {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& session :
         accounts.ListSessions(request.query.GetInt("account_id", 1, INT64_MAX))) {
      items.push_back(SessionView(session));
    }
    return JsonResponse(200, {{"items", std::move(items)}});
  }
};

struct RevokeSession {
  console::AccountService& accounts;
  Response operator()(const Request& request) const {
    accounts.Revoke(request.Id("id"));
    return NoContentResponse();
  }
};

}  // namespace

ScopeSet ScopesOf(console::Role role) {
  switch (role) {
    case console::Role::kViewer:
      return ScopeSet::Granting({Scope::kRead});
    case console::Role::kOperator:
      return ScopeSet::Granting({Scope::kOperate});
    case console::Role::kAdmin:
      return ScopeSet::All();
  }
  return {};
}

Caller CallerOf(const console::Session& session) {
  Caller caller;
  if (session.account) {
    caller.kind = Caller::Kind::kAccount;
    caller.id = session.account->id;
    caller.name = session.account->email;
    caller.scopes = ScopesOf(session.account->role);
  } else {
    caller.kind = Caller::Kind::kBootstrapKey;
    caller.name = "api_key";
    caller.scopes = ScopeSet::All();
  }
  caller.csrf_token = session.csrf_token;
  return caller;
}

std::function<std::optional<Caller>(std::string_view)> SessionResolver(
    console::AccountService& accounts) {
  return [&accounts](std::string_view token) -> std::optional<Caller> {
    const auto session = accounts.Resolve(token);
    if (!session) return std::nullopt;
    return CallerOf(*session);
  };
}

void RegisterAccountRoutes(Router& router, console::AccountService& accounts) {
  router.Add("GET", "/v1/console/sign-in", Auth::kNone, SignInState{accounts});
  router.Add("POST", "/v1/console/sign-in", Auth::kNone, SignIn{accounts});
  router.Add("POST", "/v1/console/sign-out", Auth::kServerKey, SignOut{accounts});
  router.Add("GET", "/v1/console/session", Auth::kServerKey, CurrentSession{accounts});
  router.Add("GET", "/v1/console/accounts", Auth::kServerKey, ListAccounts{accounts});
  router.Add("POST", "/v1/console/accounts", Auth::kServerKey, AddAccount{accounts});
  router.Add("PATCH", "/v1/console/accounts/{id}", Auth::kServerKey, ChangeRole{accounts});
  router.Add("DELETE", "/v1/console/accounts/{id}", Auth::kServerKey, DeleteAccount{accounts});
  router.Add("GET", "/v1/console/sessions", Auth::kServerKey, ListSessions{accounts});
  router.Add("POST", "/v1/console/sessions/{id}/revoke", Auth::kServerKey, RevokeSession{accounts});
}

}  // namespace chopar::http
