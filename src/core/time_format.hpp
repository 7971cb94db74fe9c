#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.hpp"

namespace chopar::core {

// RFC 3339 in UTC with whole seconds: "2026-10-28T13:05:00Z".
std::string FormatRfc3339(TimePoint t);

// RFC 3339 with microseconds when they are not zero; used for cursors and
// timestamps that must round-trip PostgreSQL's precision.
std::string FormatRfc3339Micros(TimePoint t);

// Parses RFC 3339 ("…Z" or "…+05:00", optional fraction, microseconds
// kept). nullopt if malformed or outside what a TimePoint holds (about
// 1677-09-22 to 2262-04-11): a year 9999 is refused, never wrapped.
std::optional<TimePoint> ParseRfc3339(std::string_view text);

// Parses PostgreSQL's timestamptz text output in the UTC session time zone
// ("2026-10-28 13:05:00.123456+00"). Throws std::runtime_error for any other
// text, or a time outside what a TimePoint holds.
TimePoint ParsePgTimestamp(std::string_view text);

// Microseconds since the Unix epoch: the form chopar passes timestamps to SQL in.
long long ToUnixMicros(TimePoint t);
TimePoint FromUnixMicros(long long micros);

// Whether `zone` is an IANA time zone name the system tzdata knows.
bool IsKnownTimeZone(std::string_view zone);

}  // namespace chopar::core
