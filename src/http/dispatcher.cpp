#include "http/dispatcher.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>

#include "access/api_keys.hpp"
#include "core/encoding.hpp"
#include "core/log_context.hpp"
#include "core/request_error.hpp"
#include "core/text.hpp"
#include "db/actor.hpp"
#include "http/error_response.hpp"
#include "http/subscriber_token.hpp"

namespace chopar::http {
namespace {

constexpr std::string_view kInboxPrefix = "/v1/inbox/";

bool IsInboxPath(std::string_view path) { return path.starts_with(kInboxPrefix); }

// Read by pages on other origins (the bell): the inbox, and the channels
// the bell builds its switches from (fetched without credentials, so no
// preflight).
bool IsReadFromOtherOrigins(std::string_view path) {
  return IsInboxPath(path) || path == "/v1/channels";
}

void AddCorsHeaders(Response& response) {
  response.headers.emplace_back("Access-Control-Allow-Origin", "*");
  // So that a page on another origin may read them: they are not CORS-safelisted headers.
  if (response.status == 429) {
    response.headers.emplace_back("Access-Control-Expose-Headers", "Retry-After");
  } else {
    response.headers.emplace_back("Access-Control-Expose-Headers", std::string(kLsnHeaderName));
  }
}

// The Chopar-LSN a request carries (none: absent); 400 when malformed.
std::optional<db::Lsn> RequestedLsn(const Request& request) {
  const auto text = request.Header(kLsnHeader);
  if (!text) return std::nullopt;
  const auto lsn = db::ParseLsn(*text);
  if (!lsn) {
    throw core::InvalidField(std::string(kLsnHeaderName),
                             "Chopar-LSN must be a WAL position as a previous response gave it "
                             "(two hexadecimal numbers: 16/B374D848)");
  }
  return lsn;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

bool ChangesState(std::string_view method) { return method != "GET" && method != "HEAD"; }

Caller BootstrapCaller() {
  return Caller{.kind = Caller::Kind::kBootstrapKey,
                .id = 0,
                .name = "api_key",
                .scopes = ScopeSet::All(),
                .tenant = std::nullopt,
                .csrf_token = {}};
}

// The caller of a console session's cookie; its CSRF token checked on a
// state-changing request.
Caller CheckSession(const Request& request, std::string_view token, const AuthKeys& keys) {
  auto caller = keys.resolvers.sessions ? keys.resolvers.sessions(token) : std::nullopt;
  if (!caller) throw core::Unauthorized("console session expired or signed out; sign in again");
  if (ChangesState(request.method)) {
    const auto sent = request.Header(kCsrfHeader);
    if (!sent || caller->csrf_token.empty() ||
        !core::ConstantTimeEquals(*sent, caller->csrf_token)) {
      throw core::Forbidden("missing or wrong X-CSRF-Token for this console session");
    }
  }
  return std::move(*caller);
}

// The caller of a server-credential route; nullopt when it can only be told
// with the database (`with_database` false: an API key that is not the
// bootstrap key, a session) and so is left to Dispatch.
std::optional<Caller> CheckServerCaller(const Request& request, const AuthKeys& keys,
                                        bool with_database) {
  const auto header = request.Header("authorization");
  if (!header) {
    const auto cookie = request.Header("cookie");
    const std::string_view token =
        cookie ? CookieValue(*cookie, kSessionCookie) : std::string_view{};
    if (token.empty()) throw core::Unauthorized("missing Authorization: Bearer <api key>");
    if (!with_database) return std::nullopt;
    return CheckSession(request, token, keys);
  }
  const std::string_view token = BearerToken(*header);
  if (token.empty()) throw core::Unauthorized("invalid API key");
  if (!keys.api_key.empty() && core::ConstantTimeEquals(token, keys.api_key)) {
    return BootstrapCaller();
  }
  if (!keys.resolvers.api_keys || !access::ApiKeyStore::LooksLikeKey(token)) {
    throw core::Unauthorized("invalid API key");
  }
  if (!with_database) return std::nullopt;
  auto caller = keys.resolvers.api_keys(token);
  if (!caller) throw core::Unauthorized("invalid API key (unknown, expired or deleted)");
  return caller;
}

// A state-changing route a credential calls, but not the sending of
// notifications and broadcasts: that is the application's traffic, which
// the notifications themselves record.
bool IsAudited(const Route& route) {
  return ChangesState(route.method) && route.access && route.access->scope != Scope::kNotify;
}

// The audit log's actor (db/actor.hpp): who, from where, in which request.
std::string AuditActor(const Caller& caller, const Request& request) {
  return DumpJson({{"actor", caller.AuditName()},
                   {"name", caller.name},
                   {"address", request.client_address},
                   {"request_id", request.id}});
}

std::string RouteName(const Route& route) {
  return route.method + " " + DocumentedPattern(route.pattern);
}

// Whether the caller may call the route at all (the handler may still keep
// a tenant's key to its tenant's data).
void Authorize(const Route& route, const Caller& caller) {
  if (!route.access) {
    throw core::Forbidden(RouteName(route) +
                          " is not in the route access table; no credential may call it");
  }
  if (!caller.scopes.Has(route.access->scope)) {
    throw core::Forbidden("this credential lacks the scope \"" +
                          std::string(ScopeName(route.access->scope)) + "\" that " +
                          RouteName(route) + " needs");
  }
  if (caller.tenant && route.access->tenancy == Tenancy::kGlobal) {
    throw core::Forbidden("a key confined to tenant \"" + *caller.tenant + "\" may not call " +
                          RouteName(route) + ": it reaches beyond one tenant");
  }
}

std::int64_t CheckSubscriber(const Request& request, const AuthKeys& keys, bool with_database) {
  std::optional<std::string> query_token;
  std::string_view token;
  if (const auto header = request.Header("authorization")) {
    token = BearerToken(*header);
  } else {
    query_token = request.query.Get("token");
    if (query_token) token = *query_token;
  }
  if (token.empty())
    throw core::Unauthorized("missing subscriber token (Authorization: Bearer or ?token=)");
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const VerifiedToken verified = VerifySubscriberToken(
      keys.inbox_secret, token, {.now = now, .v1_until = keys.v1_tokens_until});
  switch (verified.outcome) {
    case VerifiedToken::Outcome::kValid:
      break;
    case VerifiedToken::Outcome::kInvalid:
      throw core::Unauthorized("invalid subscriber token");
    case VerifiedToken::Outcome::kExpired:
      throw core::Unauthorized(
          "subscriber token expired; get a new one (GET /v1/users/{id}/token)");
    case VerifiedToken::Outcome::kV1Retired:
      throw core::Unauthorized(
          "v1 subscriber tokens are no longer accepted; get a new one (GET /v1/users/{id}/token)");
  }
  if (with_database && keys.token_generation &&
      keys.token_generation(verified.user_id).value_or(0) != verified.generation) {
    throw core::Unauthorized("subscriber token revoked; get a new one (GET /v1/users/{id}/token)");
  }
  return verified.user_id;
}

// Checks the route's credentials; sets request.subscriber for inbox routes.
// `with_database`: also the user's token generation (not on an IO thread).
void Authenticate(const Route& route, Request& request, const AuthKeys& keys, bool with_database) {
  switch (route.auth) {
    case Auth::kNone:
      break;
    case Auth::kServerKey:
      request.caller = CheckServerCaller(request, keys, with_database);
      if (request.caller) Authorize(route, *request.caller);
      break;
    case Auth::kSubscriber:
      request.subscriber = CheckSubscriber(request, keys, with_database);
      break;
  }
}

void BindParams(const Route& route, const std::vector<std::string>& raw, Request& request) {
  std::size_t next = 0;
  for (const auto& segment : route.segments) {
    if (segment.kind == Route::Segment::Kind::kLiteral) continue;
    const std::string& text = raw.at(next++);
    if (segment.kind == Route::Segment::Kind::kId) {
      std::int64_t value = 0;
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) {
        throw core::InvalidField(segment.text, segment.text + " must be a positive 64-bit integer");
      }
      request.ids[segment.text] = value;
    } else {
      auto decoded = core::PercentDecode(text, /*plus_is_space=*/false);
      if (!decoded || decoded->empty()) {
        throw core::InvalidField(segment.text, "malformed percent-encoding in " + segment.text);
      }
      if (decoded->find('\0') != std::string::npos) {
        throw core::InvalidField(segment.text, segment.text + " must not contain %00 (NUL)");
      }
      request.strings[segment.text] = std::move(*decoded);
    }
  }
}

}  // namespace

std::string_view CookieValue(std::string_view cookie_header, std::string_view name) {
  while (!cookie_header.empty()) {
    const auto end = cookie_header.find(';');
    std::string_view pair = cookie_header.substr(0, end);
    cookie_header =
        end == std::string_view::npos ? std::string_view{} : cookie_header.substr(end + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const auto equals = pair.find('=');
    if (equals != std::string_view::npos && pair.substr(0, equals) == name) {
      return pair.substr(equals + 1);
    }
  }
  return {};
}

std::string_view BearerToken(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      !core::StartsWithIgnoringCase(authorization, kScheme)) {
    return {};
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

Response Dispatcher::Dispatch(Request& request) const noexcept {
  // Every line logged while handling the request names it.
  std::optional<core::LogScope> request_scope;
  if (!request.id.empty()) request_scope.emplace("request_id", request.id);
  std::string route_label = kUnmatchedRoute;
  Response response;
  try {
    response = Route(request, route_label);
  } catch (...) {
    response =
        MapException(std::current_exception(), request.method + " " + route_label).ToResponse();
  }
  if (IsReadFromOtherOrigins(request.path)) AddCorsHeaders(response);
  try {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - request.received_at)
            .count();
    metrics_.Record(route_label, response.status, seconds);
    // Path, not query: a query may carry a subscriber token.
    spdlog::debug("{} {} → {} in {:.1f} ms", request.method, route_label, response.status,
                  seconds * 1000);
  } catch (const std::exception& e) {
    spdlog::warn("recording HTTP metrics failed: {}", e.what());
  }
  return response;
}

std::optional<ErrorInfo> Dispatcher::Preauthorize(const Request& request) const noexcept {
  try {
    const auto match = router_.Find(request.method, request.path);
    if (match.outcome != Router::Match::Outcome::kFound || match.route->auth == Auth::kNone) {
      return std::nullopt;
    }
    Request copy;
    copy.raw_query = request.raw_query;
    copy.headers = request.headers;
    copy.query = QueryParams::Parse(copy.raw_query);
    Authenticate(*match.route, copy, keys_, /*with_database=*/false);
    return std::nullopt;
  } catch (...) {
    return MapException(std::current_exception(), request.method + " " + request.path);
  }
}

std::optional<Response> Dispatcher::AdmitCaller(const struct Route& route,
                                                const Request& request) const {
  if (limiter_ == nullptr) return std::nullopt;
  switch (route.auth) {
    case Auth::kSubscriber:
      return limiter_->Admit(RateScope::kSubscriber, std::to_string(request.subscriber.value()));
    case Auth::kServerKey:
      // Each credential has its bucket: the bootstrap key, each API key,
      // each console account.
      return limiter_->Admit(RateScope::kApiKey,
                             request.caller ? request.caller->AuditName() : "api_key");
    case Auth::kNone:
      break;
  }
  return std::nullopt;
}

Response Dispatcher::Route(Request& request, std::string& route_label) const {
  auto match = router_.Find(request.method, request.path);
  if (match.outcome == Router::Match::Outcome::kNotFound) {
    throw core::NotFound("no route for " + request.method + " " + request.path);
  }
  if (match.outcome == Router::Match::Outcome::kMethodNotAllowed) {
    if (request.method == "OPTIONS" && IsInboxPath(request.path)) {
      // Preflight of a browser calling an inbox route from another origin.
      Response preflight = NoContentResponse();
      preflight.headers.emplace_back("Access-Control-Allow-Methods",
                                     Join(match.allowed_methods, ", ") + ", OPTIONS");
      preflight.headers.emplace_back("Access-Control-Allow-Headers",
                                     "Authorization, Content-Type, Last-Event-ID, Chopar-LSN");
      preflight.headers.emplace_back("Access-Control-Max-Age", "86400");
      return preflight;
    }
    Response response =
        ToErrorInfo(core::RequestError(core::ErrorCode::kMethodNotAllowed,
                                       request.method + " is not allowed on " + request.path +
                                           "; allowed: " + Join(match.allowed_methods, ", ")))
            .ToResponse();
    response.headers.emplace_back("Allow", Join(match.allowed_methods, ", "));
    return response;
  }
  const auto& route = *match.route;
  route_label = route.pattern;
  if (limiter_ != nullptr && IsPublicPath(request.path)) {
    if (auto refused = limiter_->Admit(RateScope::kAddress, request.client_address))
      return *refused;
  }
  request.query = QueryParams::Parse(request.raw_query);
  Authenticate(route, request, keys_, /*with_database=*/true);
  if (auto refused = AdmitCaller(route, request)) return *refused;
  BindParams(route, match.raw_params, request);
  // What the handler changes is the audit log's, in its own transactions.
  std::optional<db::ActorScope> actor;
  if (request.caller && IsAudited(route)) actor.emplace(AuditActor(*request.caller, request));
  if (reads_ == nullptr) return route.handler(request);
  // Read-your-writes (docs/api.md): the reads wait for the write the caller
  // names; the writes' commits fetch their LSN in their COMMIT's round trip.
  db::ReadYourWritesScope consistency(RequestedLsn(request), /*capture=*/true);
  Response response = route.handler(request);
  std::optional<db::Lsn> written = consistency.written();
  // A write that committed outside a db::Transaction: one round trip more.
  // Its failure leaves the header out, never the write's answer.
  if (!written && request.method != "GET" && request.method != "HEAD" && response.status < 300 &&
      response.status >= 200) {
    try {
      written = reads_->PrimaryInsertLsn();
    } catch (const std::exception& e) {
      spdlog::warn("no Chopar-LSN for {} {}: {}", request.method, route.pattern, e.what());
    }
  }
  if (written) response.headers.emplace_back(std::string(kLsnHeaderName), db::FormatLsn(*written));
  return response;
}

}  // namespace chopar::http
