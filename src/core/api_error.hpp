#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace chopar::core {

// A request that cannot be carried out because of what the caller sent or
// asked for. Thrown by validation and domain code; the HTTP layer maps it to
// a status code and the documented error body in one place. Nothing has been
// written when it is thrown.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string code, std::string message,
           std::optional<std::string> field = std::nullopt)
      : std::runtime_error(message),
        status_(status),
        code_(std::move(code)),
        field_(std::move(field)) {}

  [[nodiscard]] int status() const { return status_; }
  [[nodiscard]] const std::string& code() const { return code_; }
  [[nodiscard]] const std::optional<std::string>& field() const { return field_; }

 private:
  int status_;
  std::string code_;
  std::optional<std::string> field_;
};

inline ApiError InvalidField(std::string field, std::string message) {
  return ApiError(400, "invalid_field", std::move(message), std::move(field));
}
inline ApiError NotFound(std::string message) { return ApiError(404, "not_found", std::move(message)); }
inline ApiError UserNotFound(long long user_id) {
  return ApiError(404, "user_not_found", "user " + std::to_string(user_id) + " does not exist",
                  "user_id");
}

}  // namespace chopar::core
