#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.hpp"
#include "http/route_access.hpp"

namespace chopar::http {

// Who may call a route (docs/api.md "Conventions").
enum class Auth {
  kNone,        // /healthz, /metrics where public, webhooks that check their own secret
  kServerKey,   // Authorization: Bearer <api key>
  kSubscriber,  // a subscriber token as Bearer or ?token=; sets Request::subscriber
};

// One endpoint. It runs on a handler thread and may block (database work).
// It reports a bad request by throwing core::RequestError; every exception is
// mapped to a status and an error body by the dispatcher, in one place.
using Handler = std::function<Response(const Request&)>;

struct Route {
  std::string method;
  std::string pattern;  // e.g. "/v1/users/{id}/telegram"; also the metrics label
  Auth auth = Auth::kServerKey;
  Handler handler;

  struct Segment {
    enum class Kind { kLiteral, kId, kString } kind;
    std::string text;  // the literal, or the parameter's name
  };
  std::vector<Segment> segments;
  // The largest request body this route accepts; 0: the server's default.
  // Bulk endpoints raise it (PUT /v1/schedules carries up to 10,000 items).
  std::size_t body_limit = 0;
  // What a caller of an Auth::kServerKey route needs: its entry in the
  // route access table (http/route_access.hpp). nullopt: the route is not
  // declared there, and every caller is refused (403 forbidden).
  std::optional<RouteAccess> access;
};

// Method + path pattern → handler. Patterns are '/'-separated segments:
// a literal, `{name}` — an id, matching a segment of decimal digits that must
// be a positive int64 (else 400 invalid_field naming the parameter) — or
// `{name:str}`, any non-empty segment, percent-decoded. A literal segment
// wins over a parameter at the same place, so "/v1/notifications/batch" and
// "/v1/notifications/{id}" coexist.
//
// Add() is not thread-safe and must happen before serving; Match() is const
// and may run on any number of threads.
class Router {
 public:
  // Throws std::invalid_argument for a malformed pattern or a route that is
  // already there (same method and pattern).
  void Add(std::string method, std::string pattern, Auth auth, Handler handler,
           std::size_t body_limit = 0);
  // The body limit of the route `method` + `path` would match, or `fallback`.
  [[nodiscard]] std::size_t BodyLimitFor(std::string_view method, std::string_view path,
                                         std::size_t fallback) const;
  // The largest limit of any route, at least `fallback`: what a request may
  // announce before its route is known.
  [[nodiscard]] std::size_t LargestBodyLimit(std::size_t fallback) const;

  struct Match {
    enum class Outcome { kFound, kNotFound, kMethodNotAllowed } outcome = Outcome::kNotFound;
    const Route* route = nullptr;              // kFound
    std::vector<std::string> raw_params;       // kFound: the parameter segments, raw
    std::vector<std::string> allowed_methods;  // kMethodNotAllowed: for the Allow header
  };
  [[nodiscard]] Match Find(std::string_view method, std::string_view path) const;

  [[nodiscard]] const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

// Splits a path into its '/'-separated segments ("/a/b" → {"a", "b"}); a
// trailing slash gives a last empty segment, which matches nothing. The root
// "/" has no segment, so the pattern "/" matches it alone.
std::vector<std::string_view> SplitPath(std::string_view path);

}  // namespace chopar::http
