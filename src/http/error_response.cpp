#include "http/error_response.hpp"

#include <spdlog/spdlog.h>

#include "db/errors.hpp"

namespace chopar::http {
namespace {

ErrorInfo Info(core::ErrorCode code, std::string message) {
  return {HttpStatus(code), std::string(core::ErrorCodeName(code)), std::move(message),
          std::nullopt};
}

// A 503 for a database that cannot do it now but may in `after`.
ErrorInfo Unavailable(std::string message, std::chrono::seconds after) {
  ErrorInfo info = Info(core::ErrorCode::kUnavailable, std::move(message));
  info.retry_after = after;
  return info;
}

}  // namespace

nlohmann::json ErrorInfo::ToJson() const {
  return {{"error",
           {{"code", code},
            {"message", message},
            {"field", field ? nlohmann::json(*field) : nlohmann::json(nullptr)}}}};
}

Response ErrorInfo::ToResponse() const {
  Response response = JsonResponse(status, ToJson());
  if (retry_after)
    response.headers.emplace_back("Retry-After", std::to_string(retry_after->count()));
  return response;
}

int HttpStatus(core::ErrorCode code) {
  using core::ErrorCode;
  switch (code) {
    case ErrorCode::kBadRequest:
    case ErrorCode::kInvalidJson:
    case ErrorCode::kInvalidField:
    case ErrorCode::kInvalidCallback:
      return 400;
    case ErrorCode::kUnauthorized:
      return 401;
    case ErrorCode::kForbidden:
      return 403;
    case ErrorCode::kNotFound:
    case ErrorCode::kUserNotFound:
      return 404;
    case ErrorCode::kMethodNotAllowed:
      return 405;
    case ErrorCode::kConflict:
    case ErrorCode::kErasurePending:
    case ErrorCode::kInUse:
      return 409;
    case ErrorCode::kPayloadTooLarge:
      return 413;
    case ErrorCode::kHeadersTooLarge:
      return 431;
    case ErrorCode::kRateLimited:
      return 429;
    case ErrorCode::kUnavailable:
      return 503;
  }
  return 500;
}

ErrorInfo ToErrorInfo(const core::RequestError& error) {
  ErrorInfo info = Info(error.code(), error.what());
  info.field = error.field();
  return info;
}

ErrorInfo MapException(std::exception_ptr error, std::string_view context) {
  using core::ErrorCode;
  try {
    std::rethrow_exception(error);
  } catch (const core::RequestError& e) {
    return ToErrorInfo(e);
  } catch (const nlohmann::json::parse_error& e) {
    return Info(ErrorCode::kInvalidJson, std::string("malformed JSON: ") + e.what());
  } catch (const db::CheckViolation& e) {
    // The database refused what validation let through: still the caller's input.
    spdlog::info("{}: check constraint refused input: {}", context, e.what());
    return Info(ErrorCode::kInvalidField, "a value breaks a database constraint");
  } catch (const db::InsufficientResources& e) {
    // Disk or memory of the database server: an operator has to act.
    spdlog::error("{}: {}", context, e.what());
    return Unavailable("the database is out of resources; retry later", std::chrono::seconds(30));
  } catch (const db::ConnectionError& e) {
    spdlog::warn("{}: {}", context, e.what());
    return Unavailable("the database is unavailable; retry later", std::chrono::seconds(5));
  } catch (const std::exception& e) {
    if (db::IsTransient(e)) {
      // No free connection in time, a lost serialization race or deadlock,
      // a lock or statement timeout: a new transaction a moment later wins.
      spdlog::warn("{}: {}", context, e.what());
      return Unavailable("the database is busy; retry later", std::chrono::seconds(1));
    }
    spdlog::error("{}: internal error: {}", context, e.what());
  } catch (...) {
    spdlog::error("{}: internal error of unknown type", context);
  }
  return {500, "internal", "internal error", std::nullopt};
}

}  // namespace chopar::http
