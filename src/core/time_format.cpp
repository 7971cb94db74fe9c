#include "core/time_format.hpp"

#include <date/date.h>
#include <date/tz.h>

#include <cstdint>
#include <stdexcept>

namespace chopar::core {

namespace {

// Writes `value` (>= 0) as exactly `width` digits ending just before `end`.
char* PutDigits(char* end, std::int64_t value, int width) {
  for (int i = 0; i < width; ++i, value /= 10) *--end = static_cast<char>('0' + value % 10);
  return end;
}

// "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" written by hand: the notify path formats
// several times per notification, and date::format's stream costs ~20x.
std::string FormatUtc(std::chrono::sys_time<std::chrono::microseconds> t, bool micros) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const date::year_month_day ymd{date::sys_days(day)};
  const std::int64_t in_day = (t - day).count();  // 0 <= in_day < 86,400,000,000
  const std::int64_t second = in_day / 1'000'000;
  char text[32];
  char* end = text + (micros ? 27 : 20);
  *--end = 'Z';
  if (micros) {
    end = PutDigits(end, in_day % 1'000'000, 6);
    *--end = '.';
  }
  end = PutDigits(end, second % 60, 2);
  *--end = ':';
  end = PutDigits(end, second / 60 % 60, 2);
  *--end = ':';
  end = PutDigits(end, second / 3600, 2);
  *--end = 'T';
  end = PutDigits(end, static_cast<unsigned>(ymd.day()), 2);
  *--end = '-';
  end = PutDigits(end, static_cast<unsigned>(ymd.month()), 2);
  *--end = '-';
  // TimePoint holds years 1677..2262: always four digits.
  PutDigits(end, static_cast<int>(ymd.year()), 4);
  return std::string(text, micros ? 27 : 20);
}

}  // namespace

std::string FormatRfc3339(TimePoint t) {
  return FormatUtc(std::chrono::floor<std::chrono::seconds>(t), false);
}

std::string FormatRfc3339Micros(TimePoint t) {
  const auto micros = std::chrono::floor<std::chrono::microseconds>(t);
  return FormatUtc(micros, micros != std::chrono::floor<std::chrono::seconds>(micros));
}

namespace {

// The whole seconds a TimePoint can hold (about 1677 to 2262 with
// nanoseconds), one second in from each end.
constexpr std::chrono::seconds kEarliest =
    std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::min()) +
    std::chrono::seconds(1);
constexpr std::chrono::seconds kLatest =
    std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::max()) -
    std::chrono::seconds(1);

// Reads exactly `width` digits at `pos`; -1 if they are not all digits.
int Digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return -1;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// "YYYY-MM-DD?HH:MM:SS[.ffffff]" followed by an offset that `offset_of` reads.
template <typename OffsetReader>
std::optional<TimePoint> ParseTimestamp(std::string_view text, char separator,
                                        OffsetReader offset_of) {
  const int year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const int hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || text[4] != '-' ||
      text[7] != '-' || (text[10] != separator && text[10] != 't') || text[13] != ':' ||
      text[16] != ':' || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  const date::year_month_day ymd{date::year(year), date::month(static_cast<unsigned>(month)),
                                 date::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  std::size_t pos = 19;
  long long micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int scale = 100000;
    const std::size_t first = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      micros += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == first) return std::nullopt;
  }
  const std::optional<int> offset_seconds = offset_of(text.substr(pos));
  if (!offset_seconds) return std::nullopt;
  // Whole seconds first, in 64 bits, so a year a TimePoint cannot hold is
  // refused instead of wrapping when converted.
  const std::chrono::seconds since_epoch = date::sys_days(ymd).time_since_epoch() +
                                           std::chrono::hours(hour) + std::chrono::minutes(minute) +
                                           std::chrono::seconds(second) -
                                           std::chrono::seconds(*offset_seconds);
  if (since_epoch <= kEarliest || since_epoch >= kLatest) return std::nullopt;
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(since_epoch) +
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(micros)));
}

}  // namespace

std::optional<TimePoint> ParseRfc3339(std::string_view text) {
  if (text.size() < 20) return std::nullopt;
  return ParseTimestamp(text, 'T', [](std::string_view rest) -> std::optional<int> {
    if (rest == "Z" || rest == "z") return 0;
    if (rest.size() != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':')
      return std::nullopt;
    const int h = Digits(rest, 1, 2), m = Digits(rest, 4, 2);
    if (h < 0 || m < 0 || h > 23 || m > 59) return std::nullopt;
    return (rest[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  });
}

TimePoint ParsePgTimestamp(std::string_view text) {
  auto parsed = ParseTimestamp(text, ' ', [](std::string_view rest) -> std::optional<int> {
    if (rest == "+00") return 0;
    return std::nullopt;
  });
  if (!parsed)
    throw std::runtime_error("unexpected timestamp from PostgreSQL: " + std::string(text));
  return *parsed;
}

long long ToUnixMicros(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

TimePoint FromUnixMicros(long long micros) {
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(micros)));
}

bool IsKnownTimeZone(std::string_view zone) {
  if (zone.empty()) return false;
  try {
    return date::locate_zone(zone) != nullptr;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace chopar::core
