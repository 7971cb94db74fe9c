#include "schedule/wall_time_match.hpp"

#include <bit>
#include <cstdint>

namespace chopar::schedule {

namespace {

// The lowest set bit of `mask` at or above `from`; 64 if there is none.
int NextBit(std::uint64_t mask, int from) {
  if (from >= 64) return 64;
  return std::countr_zero(mask & (~std::uint64_t{0} << from));
}

}  // namespace

std::optional<LocalMinutes> NextMatchingWallTime(const CronPattern& pattern, LocalMinutes from,
                                                 date::local_seconds limit) {
  const std::uint64_t minutes = pattern.minutes.to_ullong();
  const std::uint64_t hours = pattern.hours.to_ullong();
  const std::uint64_t months = pattern.months.to_ullong();
  const int first_minute = NextBit(minutes, 0);
  if (first_minute >= 60 || NextBit(hours, 0) >= 24 || months == 0) return std::nullopt;

  auto day = std::chrono::floor<date::days>(from);
  auto minute_of_day = static_cast<int>((from - day).count());
  while (day < limit) {
    const date::year_month_day ymd(day);
    const auto month = static_cast<unsigned>(ymd.month());
    if (((months >> month) & 1) == 0) {
      const int next = NextBit(months, static_cast<int>(month) + 1);
      const date::year year = next <= 12 ? ymd.year() : ymd.year() + date::years(1);
      const auto next_month = static_cast<unsigned>(next <= 12 ? next : NextBit(months, 1));
      day = date::local_days(year / date::month(next_month) / 1);
      minute_of_day = 0;
      continue;
    }
    if (pattern.MatchesDay(ymd)) {
      const int start_hour = minute_of_day / 60;
      for (int hour = NextBit(hours, start_hour); hour < 24; hour = NextBit(hours, hour + 1)) {
        const int minute = NextBit(minutes, hour == start_hour ? minute_of_day % 60 : 0);
        if (minute >= 60) continue;
        const LocalMinutes found = day + std::chrono::hours(hour) + std::chrono::minutes(minute);
        if (found >= limit) return std::nullopt;
        return found;
      }
    }
    day += date::days(1);
    minute_of_day = 0;
  }
  return std::nullopt;
}

}  // namespace chopar::schedule
