#include "http/error_response.hpp"

#include <spdlog/spdlog.h>

#include "core/api_error.hpp"
#include "db/errors.hpp"

namespace chopar::http {

nlohmann::json ErrorInfo::ToJson() const {
  return {{"error",
           {{"code", code},
            {"message", message},
            {"field", field ? nlohmann::json(*field) : nlohmann::json(nullptr)}}}};
}

Response ErrorInfo::ToResponse() const { return JsonResponse(status, ToJson()); }

ErrorInfo MapException(std::exception_ptr error, std::string_view context) {
  try {
    std::rethrow_exception(error);
  } catch (const core::ApiError& e) {
    return {e.status(), e.code(), e.what(), e.field()};
  } catch (const nlohmann::json::parse_error& e) {
    return {400, "invalid_json", std::string("malformed JSON: ") + e.what(), std::nullopt};
  } catch (const db::CheckViolation& e) {
    // The database refused what validation let through: still the caller's input.
    spdlog::info("{}: check constraint refused input: {}", context, e.what());
    return {400, "invalid_field", "a value breaks a database constraint", std::nullopt};
  } catch (const db::PoolTimeout& e) {
    spdlog::warn("{}: {}", context, e.what());
    return {503, "unavailable", "the database is busy; retry later", std::nullopt};
  } catch (const db::ConnectionError& e) {
    spdlog::warn("{}: {}", context, e.what());
    return {503, "unavailable", "the database is unavailable; retry later", std::nullopt};
  } catch (const std::exception& e) {
    spdlog::error("{}: internal error: {}", context, e.what());
  } catch (...) {
    spdlog::error("{}: internal error of unknown type", context);
  }
  return {500, "internal", "internal error", std::nullopt};
}

}  // namespace chopar::http
