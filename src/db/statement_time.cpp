#include "db/statement_time.hpp"

#include "core/time_format.hpp"

namespace chopar::db {

std::string SqlTime(core::TimePoint t) { return core::FormatRfc3339Micros(t); }

std::optional<core::TimePoint> SqlNow(const core::Clock& clock) {
  if (clock.IsReal()) return std::nullopt;
  return clock.Now();
}

std::optional<std::string> SqlNowParam(std::optional<core::TimePoint> now) {
  if (!now) return std::nullopt;
  return SqlTime(*now);
}

}  // namespace chopar::db
