#pragma once

#include <optional>

#include "core/clock.hpp"
#include "core/time_format.hpp"
#include "db/result.hpp"

namespace chopar::db {

// A timestamptz column selected as text (`created_at::text`), as a time
// point; OptTimeColumn gives nullopt for NULL. Throw as
// core::ParsePgTimestamp does on text that is not a timestamp.
inline core::TimePoint TimeColumn(const Result& rows, int row, const char* column) {
  return core::ParsePgTimestamp(rows.Text(row, column));
}

inline std::optional<core::TimePoint> OptTimeColumn(const Result& rows, int row,
                                                    const char* column) {
  if (rows.IsNull(row, column)) return std::nullopt;
  return TimeColumn(rows, row, column);
}

}  // namespace chopar::db
