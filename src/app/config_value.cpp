#include "app/config_value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace chopar::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A value as written, before its target has accepted it.
using Written = std::variant<std::int64_t, double, bool, std::string, std::vector<std::string>>;

// The refusal of a value of the wrong kind; AssignWritten says what was expected.
const Refusal kWrongType{true, ""};

std::optional<double> AsNumber(const Written& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return static_cast<double>(*integer);
  if (const auto* number = std::get_if<double>(&value)) return *number;
  return std::nullopt;
}

std::optional<Refusal> SecondsInRange(double value) {
  if (std::isfinite(value) && value >= 0 && value <= kMaxSettingSeconds) return std::nullopt;
  return Refusal{false, "seconds must be from 0 to " +
                            std::to_string(static_cast<std::int64_t>(kMaxSettingSeconds))};
}

// One Store per kind of target: stores `value` or says why not.

std::optional<Refusal> Store(const Written& value, std::string* out) {
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) return kWrongType;
  *out = *text;
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, int* out) {
  const auto* integer = std::get_if<std::int64_t>(&value);
  if (integer == nullptr) return kWrongType;
  if (*integer < std::numeric_limits<int>::min() || *integer > std::numeric_limits<int>::max()) {
    return Refusal{false, "out of range"};
  }
  *out = static_cast<int>(*integer);
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, std::size_t* out) {
  const auto* integer = std::get_if<std::int64_t>(&value);
  if (integer == nullptr) return kWrongType;
  if (*integer < 0) return Refusal{false, "out of range"};
  *out = static_cast<std::size_t>(*integer);
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, double* out) {
  const auto number = AsNumber(value);
  if (!number) return kWrongType;
  if (!std::isfinite(*number)) return Refusal{false, "not a finite number"};
  *out = *number;
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, bool* out) {
  const auto* flag = std::get_if<bool>(&value);
  if (flag == nullptr) return kWrongType;
  *out = *flag;
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, seconds* out) {
  const auto* integer = std::get_if<std::int64_t>(&value);
  if (integer == nullptr) return kWrongType;
  if (auto refusal = SecondsInRange(static_cast<double>(*integer))) return refusal;
  *out = seconds(*integer);
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, milliseconds* out) {
  const auto number = AsNumber(value);
  if (!number) return kWrongType;
  if (auto refusal = SecondsInRange(*number)) return refusal;
  // Rounded, not truncated: 4.35 s is 4349.999… ms as a double.
  *out = std::chrono::round<milliseconds>(std::chrono::duration<double>(*number));
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, ListenAddress out) {
  const auto* text = std::get_if<std::string>(&value);
  if (text == nullptr) return kWrongType;
  try {
    http::ApplyListenAddress(*text, *out.settings);
  } catch (const std::invalid_argument& e) {
    return Refusal{false, e.what()};
  }
  return std::nullopt;
}

// A text its reader parses; a file's boolean or integer is taken as the
// text the environment would write for it (`timeout_seconds = 10` as "10").
std::optional<Refusal> Store(const Written& value, const ParsedText& out) {
  std::string text;
  if (const auto* written = std::get_if<std::string>(&value)) {
    text = *written;
  } else if (const auto* flag = std::get_if<bool>(&value)) {
    text = *flag ? "true" : "false";
  } else if (const auto* integer = std::get_if<std::int64_t>(&value)) {
    text = std::to_string(*integer);
  } else {
    return kWrongType;
  }
  if (std::optional<std::string> reason = out.assign(text)) return Refusal{false, *reason};
  return std::nullopt;
}

std::optional<Refusal> Store(const Written& value, std::vector<std::string>* out) {
  const auto* items = std::get_if<std::vector<std::string>>(&value);
  if (items == nullptr) return kWrongType;
  *out = *items;
  return std::nullopt;
}

// What a target takes, for "expected …".
std::string Expected(const SettingTarget& target) {
  struct {
    const char* operator()(std::string*) const { return "a string"; }
    const char* operator()(int*) const { return "an integer"; }
    const char* operator()(std::size_t*) const { return "a whole number from 0"; }
    const char* operator()(double*) const { return "a number"; }
    const char* operator()(bool*) const { return "true or false"; }
    const char* operator()(seconds*) const { return "a whole number of seconds"; }
    const char* operator()(milliseconds*) const { return "a number of seconds"; }
    const char* operator()(ListenAddress) const { return "a string host:port"; }
    const char* operator()(const ParsedText&) const { return "a string, a boolean or an integer"; }
    const char* operator()(std::vector<std::string>*) const { return "an array of strings"; }
  } expected;
  return std::visit(expected, target);
}

// nullopt: a value of a kind no target takes.
std::optional<Refusal> AssignWritten(const std::optional<Written>& value,
                                     const SettingTarget& target) {
  std::optional<Refusal> refusal =
      value ? std::visit([&](const auto& out) { return Store(*value, out); }, target)
            : std::optional<Refusal>(kWrongType);
  if (refusal && refusal->wrong_type) refusal->reason = "expected " + Expected(target);
  return refusal;
}

std::optional<Written> FromToml(const toml::node& node) {
  if (auto integer = node.value_exact<std::int64_t>()) return *integer;
  if (auto number = node.value_exact<double>()) return *number;
  if (auto flag = node.value_exact<bool>()) return *flag;
  if (auto text = node.value_exact<std::string>()) return *text;
  if (const toml::array* array = node.as_array()) {
    std::vector<std::string> items;
    for (const toml::node& item : *array) {
      auto text = item.value_exact<std::string>();
      if (!text) return std::nullopt;
      items.push_back(*text);
    }
    return items;
  }
  return std::nullopt;
}

// "a, b,c" → {"a", "b", "c"}; "" → {}.
std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) items.push_back(std::move(item));
    start = comma + 1;
  }
  return items;
}

// The whole of `text` as a Number; nullopt when it is not one. A number too
// large for the type is returned as the largest (integers) or infinity
// (floating point), so the target refuses it as out of range rather than as
// the wrong type.
template <typename Number>
std::optional<Number> ParseNumber(const std::string& text) {
  Number number{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (end != text.data() + text.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    if constexpr (std::numeric_limits<Number>::has_infinity)
      return std::numeric_limits<Number>::infinity();
    return std::numeric_limits<Number>::max();
  }
  if (error != std::errc()) return std::nullopt;
  return number;
}

std::optional<Written> FromText(const std::string& text, const SettingTarget& target) {
  if (std::holds_alternative<int*>(target) || std::holds_alternative<std::size_t*>(target) ||
      std::holds_alternative<seconds*>(target)) {
    return ParseNumber<std::int64_t>(text);
  }
  if (std::holds_alternative<double*>(target) || std::holds_alternative<milliseconds*>(target)) {
    return ParseNumber<double>(text);
  }
  if (std::holds_alternative<std::vector<std::string>*>(target)) return SplitList(text);
  if (std::holds_alternative<bool*>(target)) {
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
    return std::nullopt;
  }
  return text;
}

}  // namespace

std::optional<Refusal> AssignToml(const toml::node& node, const SettingTarget& target) {
  return AssignWritten(FromToml(node), target);
}

std::optional<Refusal> AssignText(const std::string& text, const SettingTarget& target) {
  return AssignWritten(FromText(text, target), target);
}

}  // namespace chopar::app
