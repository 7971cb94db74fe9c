#pragma once

#include <toml++/toml.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "http/settings.hpp"

namespace chopar::app {

// [server] listen: one string that sets the host and port of http::Settings.
struct ListenAddress {
  http::Settings* settings;
};

// A string its setting parses itself (an enum such as STARTTLS's modes):
// `assign` stores the value, or returns why it cannot ("must be …").
struct ParsedText {
  std::function<std::optional<std::string>(const std::string& text)> assign;
};

// Where one configuration key's value goes; its type says how the value is
// read. A std::size_t is a count from 0 up. Durations are written as
// numbers of seconds: std::chrono::seconds
// takes whole seconds, std::chrono::milliseconds any number of seconds
// (rounded to the millisecond); both from 0 to kMaxSettingSeconds. A list
// of strings is a TOML array of strings, or in the environment the items
// separated by commas ("delivery.*,notification.read"; empty: none).
using SettingTarget =
    std::variant<std::string*, int*, std::size_t*, double*, bool*, std::chrono::seconds*,
                 std::chrono::milliseconds*, ListenAddress, ParsedText, std::vector<std::string>*>;

inline constexpr double kMaxSettingSeconds =
    1e9;  // ~31 years: beyond any sensible setting, far from overflow

// Why a value was not stored: the wrong kind of value ("expected an
// integer"), or the right kind with a value the target cannot take ("out of
// range", "seconds must be from 0 to 1000000000", "bad port in …").
struct Refusal {
  bool wrong_type;
  std::string reason;
};

// Stores a value of the TOML file in `target`. Integers, floats, booleans
// and strings are taken as they are (an integer also where a float is
// expected), an array of strings where a list is expected; tables, other
// arrays, dates and times are the wrong type. Returns
// nullopt when stored, else why not (`target` is then unchanged).
std::optional<Refusal> AssignToml(const toml::node& node, const SettingTarget& target);

// Stores the text of an environment variable in `target`, read as the kind
// of value the target takes: a decimal integer (optional '-'), a decimal or
// exponent number, true/false/1/0, or the text itself. Returns as
// AssignToml.
std::optional<Refusal> AssignText(const std::string& text, const SettingTarget& target);

}  // namespace chopar::app
