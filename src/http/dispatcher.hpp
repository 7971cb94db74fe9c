#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "db/read_router.hpp"
#include "http/error_response.hpp"
#include "http/http_metrics.hpp"
#include "http/message.hpp"
#include "http/rate_limiter.hpp"
#include "http/router.hpp"

namespace chopar::http {

// The credentials besides the bootstrap key that the database knows.
struct CredentialResolvers {
  // The caller of an API key other than AuthKeys::api_key (POST
  // /v1/api-keys), or nullopt when no such key is in force (unknown,
  // expired or deleted). Reads the database; empty: api_key is the only key.
  std::function<std::optional<Caller>(std::string_view key)> api_keys;
  // The caller of a console session by its cookie's token (kSessionCookie),
  // or nullopt when the session is unknown, expired or revoked. Reads the
  // database; empty: no session is accepted.
  std::function<std::optional<Caller>(std::string_view token)> sessions;
};

struct AuthKeys {
  std::string api_key;       // server endpoints; empty: every server call is refused
  std::string inbox_secret;  // subscriber tokens; empty: every token is refused
  // The first second (unix) at which v1 subscriber tokens are refused;
  // nullopt: they are never accepted (V1TokenCutoff).
  std::optional<std::int64_t> v1_tokens_until;
  // The current token generation of a user (nullopt: no such user, which
  // counts as 0), read on a handler thread from the database: a token of
  // another generation was revoked. Empty: not checked.
  std::function<std::optional<std::int64_t>(std::int64_t)> token_generation;
  CredentialResolvers resolvers;
};

// The cookie a console session travels in, and the header that must repeat
// the session's CSRF token on every request that is not a GET or a HEAD.
inline constexpr std::string_view kSessionCookie = "chopar_session";
inline constexpr std::string_view kCsrfHeader = "x-csrf-token";
// Read-your-writes (docs/api.md): the LSN of a write, sent back on reads.
inline constexpr std::string_view kLsnHeaderName = "Chopar-LSN";
inline constexpr std::string_view kLsnHeader = "chopar-lsn";

// The value of the cookie `name` in a Cookie header, or empty.
std::string_view CookieValue(std::string_view cookie_header, std::string_view name);

// Turns a parsed request into a response: finds the route (404 not_found,
// 405 with Allow), takes the request from the client address's rate limit
// (public paths only), checks authentication (401 unauthorized: a subscriber
// token is checked for its signature, expiry and v1 cutoff, then against the
// user's current token generation; an API key against [server] api_key and
// the keys of POST /v1/api-keys; a console session's cookie, with its CSRF
// token on a state-changing request), checks that the caller may call the
// route (403 forbidden: its scope, its tenant, the route access table),
// takes it from the subscriber's or the API key's rate limit (429 rate_limited, before the
// handler), converts path ids (400 invalid_field), runs the handler, maps any exception through
// MapException, adds CORS headers for the browser-facing inbox routes (and answers their OPTIONS
// preflight), and records the request in `metrics` (HttpMetrics::Record).
//
// Runs on handler threads: it calls handlers, which block. Thread-safe (the
// router is read-only once serving). Never throws.
class Dispatcher {
 public:
  // The router, metrics and limiter must outlive the dispatcher; without a
  // limiter nothing is rate limited.
  // With `reads` ([database] read_urls), the writes answer with Chopar-LSN
  // and the reads wait for the one they carry (docs/api.md "Read-your-writes").
  Dispatcher(const Router& router, AuthKeys keys, HttpMetrics& metrics,
             RateLimiter* limiter = nullptr, db::ReadRouter* reads = nullptr)
      : router_(router),
        keys_(std::move(keys)),
        metrics_(metrics),
        limiter_(limiter),
        reads_(reads) {}

  Response Dispatch(Request& request) const noexcept;
  // The credentials check alone, on a request whose header is in and whose
  // body is not read yet (method, path, raw_query and headers filled): the
  // 401 (or 400 for a malformed query) its route would answer, or nullopt
  // when it is authorised or matches no route (Dispatch answers those).
  // Never blocks (no database, so a revoked token passes here and is
  // refused by Dispatch): safe on an IO thread. Never throws.
  [[nodiscard]] std::optional<ErrorInfo> Preauthorize(const Request& request) const noexcept;
  [[nodiscard]] const Router& router() const { return router_; }
  // Before serving only (not thread-safe).
  void AcceptCredentials(CredentialResolvers resolvers) { keys_.resolvers = std::move(resolvers); }
  [[nodiscard]] HttpMetrics& metrics() const { return metrics_; }

  // The metrics label for requests that matched no route.
  static constexpr const char* kUnmatchedRoute = "unmatched";

 private:
  Response Route(Request& request, std::string& route_label) const;
  // The subscriber's or the API key's rate limit of an authenticated request.
  std::optional<Response> AdmitCaller(const struct Route& route, const Request& request) const;

  const Router& router_;
  AuthKeys keys_;
  HttpMetrics& metrics_;
  RateLimiter* limiter_;
  db::ReadRouter* reads_;  // null: no standbys, no Chopar-LSN
};

// The bearer credential of an Authorization header ("Bearer <x>", scheme
// case-insensitive), or empty.
std::string_view BearerToken(std::string_view authorization);

}  // namespace chopar::http
