#pragma once

#include <optional>
#include <string>

#include "http/error_response.hpp"
#include "http/http_metrics.hpp"
#include "http/message.hpp"
#include "http/router.hpp"

namespace chopar::http {

struct AuthKeys {
  std::string api_key;       // server endpoints; empty: every server call is refused
  std::string inbox_secret;  // subscriber tokens; empty: every token is refused
};

// Turns a parsed request into a response: finds the route (404 not_found,
// 405 with Allow), converts path ids (400 invalid_field), checks
// authentication (401 unauthorized), runs the handler, maps any exception
// through MapException, adds CORS headers for the browser-facing inbox
// routes (and answers their OPTIONS preflight), and records the request in
// `metrics` (HttpMetrics::Record).
//
// Runs on handler threads: it calls handlers, which block. Thread-safe (the
// router is read-only once serving). Never throws.
class Dispatcher {
 public:
  // The router and metrics must outlive the dispatcher.
  Dispatcher(const Router& router, AuthKeys keys, HttpMetrics& metrics)
      : router_(router), keys_(std::move(keys)), metrics_(metrics) {}

  Response Dispatch(Request& request) const noexcept;
  // The credentials check alone, on a request whose header is in and whose
  // body is not read yet (method, path, raw_query and headers filled): the
  // 401 (or 400 for a malformed query) its route would answer, or nullopt
  // when it is authorised or matches no route (Dispatch answers those).
  // Never blocks (no database): safe on an IO thread. Never throws.
  [[nodiscard]] std::optional<ErrorInfo> Preauthorize(const Request& request) const noexcept;
  [[nodiscard]] const Router& router() const { return router_; }
  [[nodiscard]] HttpMetrics& metrics() const { return metrics_; }

  // The metrics label for requests that matched no route.
  static constexpr const char* kUnmatchedRoute = "unmatched";

 private:
  Response Route(Request& request, std::string& route_label) const;

  const Router& router_;
  AuthKeys keys_;
  HttpMetrics& metrics_;
};

// The bearer credential of an Authorization header ("Bearer <x>", scheme
// case-insensitive), or empty.
std::string_view BearerToken(std::string_view authorization);

}  // namespace chopar::http
