#include "core/quiet_hours.hpp"

#include <date/date.h>
#include <date/tz.h>

namespace chopar::core {
namespace {

int Digits2(std::string_view text, std::size_t pos) {
  if (pos + 2 > text.size()) return -1;
  const char a = text[pos], b = text[pos + 1];
  if (a < '0' || a > '9' || b < '0' || b > '9') return -1;
  return (a - '0') * 10 + (b - '0');
}

const date::time_zone& ZoneOrUtc(std::string_view name) {
  try {
    return *date::locate_zone(name);
  } catch (const std::exception&) {
    return *date::locate_zone("UTC");
  }
}

// The instant of the wall time `local` in `zone`: when it does not exist (a
// spring-forward gap), the first instant after the gap; when it occurs twice
// (fall back), the first occurrence still ahead of `now`.
TimePoint ResolveWallTime(date::local_seconds local, const date::time_zone& zone, TimePoint now) {
  const date::local_info info = zone.get_info(local);
  switch (info.result) {
    case date::local_info::unique:
      return TimePoint(local.time_since_epoch() - info.first.offset);
    case date::local_info::nonexistent:
      return TimePoint(info.first.end.time_since_epoch());
    case date::local_info::ambiguous:
      break;
  }
  const TimePoint first(local.time_since_epoch() - info.first.offset);
  if (first > now) return first;
  return TimePoint(local.time_since_epoch() - info.second.offset);
}

}  // namespace

std::optional<TimeOfDay> ParseTimeOfDay(std::string_view text) {
  if (text.size() < 5 || text[2] != ':') return std::nullopt;
  const int hours = Digits2(text, 0), minutes = Digits2(text, 3);
  int seconds = 0;
  if (text.size() > 5) {
    if (text[5] != ':') return std::nullopt;
    seconds = Digits2(text, 6);
    if (text.size() > 8 && text[8] != '.') return std::nullopt;
  }
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) {
    return std::nullopt;
  }
  return std::chrono::hours(hours) + std::chrono::minutes(minutes) + std::chrono::seconds(seconds);
}

bool IsQuiet(TimeOfDay now, TimeOfDay start, TimeOfDay end) {
  if (start == end) return false;
  if (start < end) return now >= start && now < end;
  return now >= start || now < end;
}

std::optional<TimePoint> QuietUntil(TimePoint now, const date::time_zone& zone, TimeOfDay start,
                                    TimeOfDay end) {
  const auto now_s = std::chrono::floor<std::chrono::seconds>(now);
  const auto local = zone.to_local(now_s);
  const auto midnight = std::chrono::floor<date::days>(local);
  const TimeOfDay time_of_day = local - midnight;
  if (!IsQuiet(time_of_day, start, end)) return std::nullopt;

  // The window ends today when `end` is still ahead on the wall clock,
  // otherwise (it crossed midnight) tomorrow.
  const auto local_end = end > time_of_day ? midnight + end : midnight + date::days(1) + end;
  return ResolveWallTime(local_end, zone, now);
}

std::optional<TimePoint> QuietUntil(TimePoint now, std::string_view zone, TimeOfDay start,
                                    TimeOfDay end) {
  return QuietUntil(now, ZoneOrUtc(zone), start, end);
}

TimePoint NextWallTime(TimePoint now, std::string_view zone, TimeOfDay time) {
  const date::time_zone& tz = ZoneOrUtc(zone);
  const auto now_s = std::chrono::floor<std::chrono::seconds>(now);
  const auto local = tz.to_local(now_s);
  const auto midnight = std::chrono::floor<date::days>(local);
  const TimeOfDay time_of_day = local - midnight;
  // Today when the wall time is still ahead (or now), else tomorrow.
  const auto next = time >= time_of_day ? midnight + time : midnight + date::days(1) + time;
  const TimePoint at = ResolveWallTime(next, tz, now);
  // A fall-back day whose repeated hour has passed: the next day's.
  return at >= now_s ? at : ResolveWallTime(next + date::days(1), tz, now);
}

}  // namespace chopar::core
