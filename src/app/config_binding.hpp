#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/config_value.hpp"
#include "app/logging.hpp"
#include "core/text.hpp"

// What the configuration loader (app/config.cpp) and the readers of its
// parts (app/config_providers.cpp) share: how a key is bound to its
// setting, and the rules its value must keep. Internal to app/config*.
namespace chopar::app {

// What a key's value must be beyond its type, checked on the value the file
// and the environment leave: a number's bounds, or a string's choices. The
// error reads "[section] key " + `says`.
struct Rule {
  std::optional<double> above{};       // a number: greater than this
  std::optional<double> at_least{};    // a number: at least this
  std::optional<double> at_most{};     // a number: at most this
  std::vector<std::string> choices{};  // a string: one of these
  std::string says{};
  // A check of the key's own: what follows the key in the error (": …"),
  // or nullopt when the value is good.
  std::function<std::optional<std::string>()> check{};
};

// A check by a parser that throws std::invalid_argument: its message,
// after `separator`, is the error.
template <typename Parse>
inline Rule ParsedBy(std::string separator, Parse parse) {
  return {.check = [separator = std::move(separator), parse]() -> std::optional<std::string> {
    try {
      parse();
    } catch (const std::invalid_argument& e) {
      return separator + e.what();
    }
    return std::nullopt;
  }};
}

inline Rule Positive() { return {.above = 0, .says = "must be positive"}; }
inline Rule NotNegative(std::string says = "must be >= 0") {
  return {.at_least = 0, .says = std::move(says)};
}
inline Rule Between(double lowest, double highest) {
  auto whole = [](double v) { return std::to_string(static_cast<std::int64_t>(v)); };
  return {.at_least = lowest,
          .at_most = highest,
          .says = "must be from " + whole(lowest) + " to " + whole(highest)};
}
// "must be a, b or c"; `unset_allowed`: the empty string too (a default
// chosen from the other keys).
inline Rule OneOf(std::vector<std::string> choices, bool unset_allowed = false) {
  std::string says = "must be " + core::ChoiceText(choices);
  if (unset_allowed) choices.emplace_back();
  return {.choices = std::move(choices), .says = std::move(says)};
}
// [log] level: spdlog's names, and its other name of warn.
inline Rule LogLevel() {
  Rule rule = OneOf(LogLevelNames());
  rule.choices.emplace_back("warning");
  return rule;
}

// [channels.<name>] provider: the real one or the sink; unset, the real one
// when its credentials are set.
inline Rule Provider(const std::string& real) { return OneOf({real, "sink"}, true); }

struct Binding {
  std::string section;  // "limits.hourly" for nested tables
  std::string key;
  SettingTarget target;
  Rule rule{};
};

// A key whose value is an array of tables, each entry read with bindings of
// its own: [[relay.targets]].
struct TableList {
  std::string path;  // "relay.targets"
  // Appends an entry and returns the bindings of its keys.
  std::function<std::vector<Binding>()> add;
  // Refuses an entry, once read, that set `keys` its kind does not have.
  std::function<void(const std::string& where, const std::vector<std::string>& keys)> check_keys;
};

inline std::string Where(const Binding& b) { return "[" + b.section + "] " + b.key; }

[[noreturn]] inline void Fail(const std::string& message) {
  throw std::runtime_error("config: " + message);
}

}  // namespace chopar::app
