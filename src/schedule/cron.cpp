#include "schedule/cron.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace chopar::schedule {

CronError::CronError(std::string field, std::size_t position, const std::string& problem)
    : std::invalid_argument("cron: " + (field.empty() ? std::string() : field + " field: ") +
                            problem + " at position " + std::to_string(position)),
      field_(std::move(field)),
      position_(position) {}

bool CronPattern::MatchesDay(date::year_month_day ymd) const {
  if (!months.test(static_cast<unsigned>(ymd.month()))) return false;
  const bool dom = days_of_month.test(static_cast<unsigned>(ymd.day()));
  const bool dow = days_of_week.test(date::weekday(date::sys_days(ymd)).c_encoding());
  if (day_of_month_restricted && day_of_week_restricted) return dom || dow;
  return dom && dow;
}

namespace {

constexpr std::array<std::string_view, 12> kMonthNames{"jan", "feb", "mar", "apr", "may", "jun",
                                                       "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 7> kDayNames{"sun", "mon", "tue", "wed",
                                                    "thu", "fri", "sat"};

struct FieldSpec {
  const char* name;
  int min;
  int max;       // largest value accepted in the text (7 = Sunday for day-of-week)
  int star_max;  // where "*" and "a/n" stop
  std::span<const std::string_view> names;  // names[i] stands for min + i
};

constexpr std::array<FieldSpec, 5> kFields{{
    {"minute", 0, 59, 59, {}},
    {"hour", 0, 23, 23, {}},
    {"day-of-month", 1, 31, 31, {}},
    {"month", 1, 12, 12, kMonthNames},
    {"day-of-week", 0, 7, 6, kDayNames},
}};

struct Macro {
  std::string_view name;
  std::string_view expansion;
};

constexpr std::array<Macro, 7> kMacros{{
    {"@hourly", "0 * * * *"},
    {"@daily", "0 0 * * *"},
    {"@midnight", "0 0 * * *"},
    {"@weekly", "0 0 * * 0"},
    {"@monthly", "0 0 1 * *"},
    {"@yearly", "0 0 1 1 *"},
    {"@annually", "0 0 1 1 *"},
}};

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// 1-based position of byte `index`, counting UTF-8 sequences as one character.
std::size_t PositionOf(std::string_view text, std::size_t index) {
  std::size_t position = 1;
  for (std::size_t i = 0; i < index && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++position;
  }
  return position;
}

// The character at `index`, quoted for an error message.
std::string Describe(std::string_view text, std::size_t index) {
  const auto byte = static_cast<unsigned char>(text[index]);
  if (byte >= 0x20 && byte < 0x7F) return std::string("'") + text[index] + "'";
  if (byte >= 0x80) {
    std::size_t end = index + 1;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    return "'" + std::string(text.substr(index, end - index)) + "'";
  }
  constexpr std::string_view kHex = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0xF];
}

// Parses one field, text[begin, end), into a mask of values (bit v = value v).
class FieldParser {
 public:
  FieldParser(std::string_view text, std::size_t begin, std::size_t end, const FieldSpec& spec)
      : text_(text), pos_(begin), end_(end), spec_(spec) {}

  std::uint64_t Parse() {
    std::uint64_t mask = 0;
    while (true) {
      if (AtEnd() || Peek() == ',') Fail(pos_, "empty list item");
      mask |= ParseItem();
      if (AtEnd()) break;
      if (Peek() != ',') Fail(pos_, "unexpected character " + Describe(text_, pos_));
      ++pos_;
    }
    return mask;
  }

 private:
  [[noreturn]] void Fail(std::size_t index, const std::string& problem) const {
    throw CronError(spec_.name, PositionOf(text_, index), problem);
  }
  bool AtEnd() const { return pos_ >= end_; }
  char Peek() const { return text_[pos_]; }

  std::uint64_t ParseItem() {
    const std::size_t start = pos_;
    int low = 0;
    int high = 0;
    bool single = false;
    if (Peek() == '*') {
      ++pos_;
      low = spec_.min;
      high = spec_.star_max;
    } else {
      low = ParseValue();
      high = low;
      single = true;
      if (!AtEnd() && Peek() == '-') {
        ++pos_;
        high = ParseValue();
        single = false;
        if (high < low) {
          Fail(start, "range " + std::string(text_.substr(start, pos_ - start)) + " is reversed");
        }
      }
    }
    int step = 1;
    if (!AtEnd() && Peek() == '/') {
      ++pos_;
      step = ParseStep();
      if (single) high = std::max(low, spec_.star_max);  // "a/n": a through the maximum
    }
    std::uint64_t mask = 0;
    for (int v = low; v <= high; v += step) mask |= std::uint64_t{1} << v;
    return mask;
  }

  // A number or, where the field has names, a name. Checks the field's range.
  int ParseValue() {
    const std::size_t start = pos_;
    if (AtEnd()) Fail(pos_, "expected a value");
    if (IsDigit(Peek())) {
      const long long value = ReadNumber();
      const std::string digits(text_.substr(start, pos_ - start));
      if (value < spec_.min || value > spec_.max) {
        Fail(start, "value " + digits + " out of range " + std::to_string(spec_.min) + "-" +
                        std::to_string(spec_.max));
      }
      return static_cast<int>(value);
    }
    if (IsLetter(Peek()) && !spec_.names.empty()) {
      while (!AtEnd() && IsLetter(Peek())) ++pos_;
      const std::string_view word = text_.substr(start, pos_ - start);
      for (std::size_t i = 0; i < spec_.names.size(); ++i) {
        if (EqualsIgnoreCase(word, spec_.names[i])) return spec_.min + static_cast<int>(i);
      }
      Fail(start, "unknown name \"" + std::string(word) + "\"");
    }
    if (Peek() == ',' || Peek() == '-' || Peek() == '/') Fail(pos_, "expected a value");
    Fail(pos_, "unexpected character " + Describe(text_, pos_));
  }

  int ParseStep() {
    const std::size_t start = pos_;
    if (AtEnd() || !IsDigit(Peek())) {
      if (AtEnd() || Peek() == ',') Fail(pos_, "expected a step");
      Fail(pos_, "unexpected character " + Describe(text_, pos_));
    }
    const long long step = ReadNumber();
    const int max_step = spec_.star_max - spec_.min + 1;
    if (step < 1 || step > max_step) {
      Fail(start, "step " + std::string(text_.substr(start, pos_ - start)) + " out of range 1-" +
                      std::to_string(max_step));
    }
    return static_cast<int>(step);
  }

  // Digits at pos_, saturating far above any field's range.
  long long ReadNumber() {
    long long value = 0;
    while (!AtEnd() && IsDigit(Peek())) {
      value = std::min(value * 10 + (Peek() - '0'), 1'000'000LL);
      ++pos_;
    }
    return value;
  }

  std::string_view text_;
  std::size_t pos_;
  std::size_t end_;
  const FieldSpec& spec_;
};

struct Token {
  std::size_t begin;
  std::size_t end;
};

std::vector<Token> SplitBlanks(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    if (IsBlank(text[i])) {
      ++i;
      continue;
    }
    const std::size_t begin = i;
    while (i < text.size() && !IsBlank(text[i])) ++i;
    tokens.push_back({begin, i});
  }
  return tokens;
}

CronPattern ParseFields(std::string_view text, const std::vector<Token>& tokens) {
  if (tokens.size() > kFields.size()) {
    throw CronError("", PositionOf(text, tokens[kFields.size()].begin),
                    "expected 5 fields (minute hour day-of-month month day-of-week), found a 6th");
  }
  if (tokens.size() < kFields.size()) {
    throw CronError(kFields[tokens.size()].name, PositionOf(text, text.size()),
                    "missing (expected 5 fields, found " + std::to_string(tokens.size()) + ")");
  }
  std::array<std::uint64_t, 5> masks{};
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    masks[i] = FieldParser(text, tokens[i].begin, tokens[i].end, kFields[i]).Parse();
  }
  CronPattern pattern;
  pattern.minutes = std::bitset<60>(masks[0]);
  pattern.hours = std::bitset<24>(masks[1]);
  pattern.days_of_month = std::bitset<32>(masks[2]);
  pattern.months = std::bitset<13>(masks[3]);
  const std::uint64_t sunday_folded = (masks[4] | (masks[4] >> 7)) & 0x7F;
  pattern.days_of_week = std::bitset<7>(sunday_folded);
  pattern.minute_starts_with_star = text[tokens[0].begin] == '*';
  pattern.hour_starts_with_star = text[tokens[1].begin] == '*';
  pattern.day_of_month_restricted = text[tokens[2].begin] != '*';
  pattern.day_of_week_restricted = text[tokens[4].begin] != '*';
  return pattern;
}

}  // namespace

CronPattern ParseCron(std::string_view text) {
  const std::vector<Token> tokens = SplitBlanks(text);
  if (tokens.empty()) throw CronError("", PositionOf(text, text.size()), "pattern is empty");
  const Token& first = tokens.front();
  if (text[first.begin] != '@') return ParseFields(text, tokens);

  const std::string_view name = text.substr(first.begin, first.end - first.begin);
  for (const Macro& macro : kMacros) {
    if (!EqualsIgnoreCase(name, macro.name)) continue;
    if (tokens.size() > 1) {
      throw CronError("", PositionOf(text, tokens[1].begin),
                      "unexpected text after " + std::string(macro.name));
    }
    return ParseFields(macro.expansion, SplitBlanks(macro.expansion));
  }
  throw CronError("", PositionOf(text, first.begin), "unknown macro \"" + std::string(name) + "\"");
}

}  // namespace chopar::schedule
