#pragma once

#include <date/date.h>

#include <bitset>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace chopar::schedule {

// A parsed 5-field cron pattern: one bitset per field plus the flags that
// decide the day rule and the daylight-saving rule. A plain value: copyable,
// comparable, immutable in use, safe to share between threads.
struct CronPattern {
  std::bitset<60> minutes;        // bit m: minute m (0-59)
  std::bitset<24> hours;          // bit h: hour h (0-23)
  std::bitset<32> days_of_month;  // bits 1-31; bit 0 is never set
  std::bitset<13> months;         // bits 1-12 (JAN = 1); bit 0 is never set
  std::bitset<7> days_of_week;    // bits 0-6, 0 = Sunday (7 in the text is folded into 0)

  // The minute / hour field starts with '*' ("*", "*/15", "*,5"). Either one
  // makes the pattern a wildcard pattern (see IsWildcard).
  bool minute_starts_with_star = false;
  bool hour_starts_with_star = false;
  // The day-of-month / day-of-week field does NOT start with '*'. As in
  // cronie and Vixie cron, "*/2" counts as unrestricted for this rule.
  bool day_of_month_restricted = false;
  bool day_of_week_restricted = false;

  // Cronie's daylight-saving class: true when the minute or the hour field
  // starts with '*'. Wildcard patterns follow the wall clock; the others are
  // fixed-time patterns (see next_fire.hpp).
  [[nodiscard]] bool IsWildcard() const { return minute_starts_with_star || hour_starts_with_star; }

  // Whether the pattern's month and day fields accept this calendar date. When
  // both day fields are restricted a day matches if EITHER matches; otherwise
  // both bitsets must accept it (an unrestricted "*" accepts every day).
  // Precondition: ymd.ok().
  [[nodiscard]] bool MatchesDay(date::year_month_day ymd) const;

  // Whether hour (0-23) and minute (0-59) are both selected.
  [[nodiscard]] bool MatchesTime(int hour, int minute) const {
    return hours.test(static_cast<std::size_t>(hour)) &&
           minutes.test(static_cast<std::size_t>(minute));
  }

  friend bool operator==(const CronPattern&, const CronPattern&) = default;
};

// A cron pattern that cannot be parsed. what() reads
// "cron: <field> field: <problem> at position <n>" (or "cron: <problem> at
// position <n>" for problems not inside one field), n being the 1-based
// character position in the text given to ParseCron.
class CronError : public std::invalid_argument {
 public:
  CronError(std::string field, std::size_t position, const std::string& problem);

  // "minute", "hour", "day-of-month", "month", "day-of-week", or "" when the
  // problem is not inside one field (field count, unknown macro, empty text).
  [[nodiscard]] const std::string& field() const { return field_; }
  // 1-based character position of the problem in the original text.
  [[nodiscard]] std::size_t position() const { return position_; }

 private:
  std::string field_;
  std::size_t position_;
};

// Parses "minute hour day-of-month month day-of-week", fields separated by
// spaces or tabs (leading and trailing blanks ignored). Each field is a
// comma-separated list of items: "*", "a", "a-b", "*/n", "a-b/n", "a/n" (a
// through the field's maximum, step n). Ranges: minute 0-59, hour 0-23,
// day-of-month 1-31, month 1-12 or JAN-DEC, day-of-week 0-7 or SUN-SAT with 0
// and 7 both Sunday ("*" and "a/n" stop at 6). Names are case-insensitive.
// Macros: @hourly "0 * * * *", @daily and @midnight "0 0 * * *", @weekly
// "0 0 * * 0", @monthly "0 0 1 * *", @yearly and @annually "0 0 1 1 *".
// A step is 1 to the number of values in the field.
//
// A pattern that can never fire (e.g. "0 0 30 2 *") is accepted, as cron
// does; NextFireTimes then returns nothing.
//
// Throws CronError for: a field count other than 5, an empty list item, a
// value or name outside the field, a reversed range, a step of 0 or one that
// is too large, an unknown macro, any other character. Pure; thread-safe.
[[nodiscard]] CronPattern ParseCron(std::string_view text);

}  // namespace chopar::schedule
