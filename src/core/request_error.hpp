#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace chopar::core {

// Why a request is refused, independent of the transport that carried it.
// The HTTP layer maps each code to a status in one place
// (http::MapException); a CLI or a queue consumer maps it to its own terms.
enum class ErrorCode {
  kBadRequest,        // the HTTP request itself is malformed
  kInvalidJson,       // the body is not the JSON (object) expected
  kInvalidField,      // a field is missing, of the wrong type or out of range
  kInvalidCallback,   // a provider's callback names no message or no status
  kUnauthorized,      // missing or wrong credentials
  kForbidden,         // the credentials are right but may not do this
  kNotFound,          // the addressed object does not exist
  kUserNotFound,      // the user a request names does not exist
  kConflict,          // the object's state does not allow the change
  kErasurePending,    // the user is being erased; a new one of its id may be made after
  kInUse,             // the object is used by another (a layout by a template); not deleted
  kMethodNotAllowed,  // the path exists with other methods
  kPayloadTooLarge,   // the request is larger than accepted
  kHeadersTooLarge,   // the request's headers are larger than accepted
  kRateLimited,       // too many requests; retry later
  kUnavailable,       // a dependency (configuration, database) is missing or down
};

// The snake_case code of the API's error body ("invalid_json", "user_not_found", …;
// see docs/api.md "Conventions").
constexpr std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadRequest:
      return "bad_request";
    case ErrorCode::kInvalidJson:
      return "invalid_json";
    case ErrorCode::kInvalidField:
      return "invalid_field";
    case ErrorCode::kInvalidCallback:
      return "invalid_callback";
    case ErrorCode::kUnauthorized:
      return "unauthorized";
    case ErrorCode::kForbidden:
      return "forbidden";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kUserNotFound:
      return "user_not_found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kErasurePending:
      return "erasure_pending";
    case ErrorCode::kInUse:
      return "in_use";
    case ErrorCode::kMethodNotAllowed:
      return "method_not_allowed";
    case ErrorCode::kPayloadTooLarge:
      return "payload_too_large";
    case ErrorCode::kHeadersTooLarge:
      return "headers_too_large";
    case ErrorCode::kRateLimited:
      return "rate_limited";
    case ErrorCode::kUnavailable:
      return "unavailable";
  }
  return "";
}

// A request that cannot be carried out because of what the caller sent or
// asked for, or because what it needs is not there. Thrown by validation and
// domain code; `what()` is the message for the caller, `field` names the
// offending request field when there is one. Nothing has been written when it
// is thrown. A copyable value, also held in results (hub::BatchItemResult).
class RequestError : public std::runtime_error {
 public:
  RequestError(ErrorCode code, const std::string& message,
               std::optional<std::string> field = std::nullopt)
      : std::runtime_error(message), code_(code), field_(std::move(field)) {}

  [[nodiscard]] ErrorCode code() const { return code_; }
  [[nodiscard]] const std::optional<std::string>& field() const { return field_; }

 private:
  ErrorCode code_;
  std::optional<std::string> field_;
};

inline RequestError InvalidJson(const std::string& message) {
  return RequestError(ErrorCode::kInvalidJson, message);
}
inline RequestError InvalidField(std::string field, const std::string& message) {
  return RequestError(ErrorCode::kInvalidField, message, std::move(field));
}
inline RequestError Unauthorized(const std::string& message) {
  return RequestError(ErrorCode::kUnauthorized, message);
}
inline RequestError Forbidden(const std::string& message) {
  return RequestError(ErrorCode::kForbidden, message);
}
inline RequestError NotFound(const std::string& message) {
  return RequestError(ErrorCode::kNotFound, message);
}
inline RequestError UserNotFound(long long user_id) {
  return RequestError(ErrorCode::kUserNotFound,
                      "user " + std::to_string(user_id) + " does not exist", "user_id");
}
inline RequestError ErasurePending(long long user_id) {
  return RequestError(ErrorCode::kErasurePending,
                      "user " + std::to_string(user_id) +
                          " is being erased; a new user of this id can be made once the erasure "
                          "has completed (GET /v1/users/" +
                          std::to_string(user_id) + "/erasure)");
}
inline RequestError Unavailable(const std::string& message) {
  return RequestError(ErrorCode::kUnavailable, message);
}

// The same error with `prefix` in front of its field ("schedules[3]." →
// "schedules[3].cron") and `label` in front of its message ("schedules[3]: …"),
// so the error of a request nested in another (a bulk request's item, a
// schedule's or a broadcast's notification) says where it is.
inline RequestError PrefixError(const RequestError& error, std::string_view prefix,
                                std::string_view label) {
  std::optional<std::string> field;
  if (error.field()) field = std::string(prefix) + *error.field();
  std::string message = error.what();
  if (!label.empty()) message = std::string(label) + ": " + message;
  return RequestError(error.code(), message, std::move(field));
}

}  // namespace chopar::core
