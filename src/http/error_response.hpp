#pragma once

#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/request_error.hpp"
#include "http/message.hpp"

namespace chopar::http {

// An error as the API reports it (docs/api.md "Conventions").
struct ErrorInfo {
  int status = 500;
  std::string code = "internal";
  std::string message;
  std::optional<std::string> field;
  // Set: the answer carries `Retry-After` (seconds): the request may well
  // succeed when sent again after that long.
  std::optional<std::chrono::seconds> retry_after = std::nullopt;

  // {"error": {"code", "message", "field"}}
  [[nodiscard]] nlohmann::json ToJson() const;
  // The JSON answer, with its Retry-After header when retry_after is set.
  [[nodiscard]] Response ToResponse() const;
};

// THE mapping from error codes to HTTP statuses:
//   bad_request, invalid_json, invalid_field, invalid_callback → 400
//   unauthorized → 401; not_found, user_not_found → 404;
//   method_not_allowed → 405; conflict → 409; payload_too_large → 413;
//   rate_limited → 429; headers_too_large → 431; unavailable → 503
int HttpStatus(core::ErrorCode code);

// A request error with its status, code, message and field.
ErrorInfo ToErrorInfo(const core::RequestError& error);

// THE mapping from exceptions to API errors; nothing else decides a status
// for an exception:
//   core::RequestError                   → ToErrorInfo
//   nlohmann::json::parse_error          → 400 invalid_json
//   db::CheckViolation                   → 400 invalid_field
//   db::InsufficientResources (class 53) → 503 unavailable, Retry-After: 30
//   db::ConnectionError (class 08, 57P01..57P03)
//                                        → 503 unavailable, Retry-After: 5
//   anything else db::IsTransient calls transient: db::PoolTimeout,
//   db::SerializationFailure (40001, 40P01), db::LockNotAvailable (55P03),
//   db::QueryCanceled (57014)            → 503 unavailable, Retry-After: 1
//   anything else                        → 500 internal (logged with `context`)
// 5xx are logged; the message of a 500 never reveals internals.
ErrorInfo MapException(std::exception_ptr error, std::string_view context);

}  // namespace chopar::http
