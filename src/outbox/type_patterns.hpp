#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::outbox {

// Which event types something receives: a list of globs in which `*`
// matches any run of characters, dots included ("task.*" matches
// "task.created" and "task.due.soon"; "*" matches everything), and every
// other character only itself. An empty list matches every type, so a
// target without `types` receives all events. A value; thread-safe.
class TypePatterns {
 public:
  TypePatterns() = default;
  // Throws std::invalid_argument naming the pattern for one that is empty
  // or holds a character event types cannot (see Problem()).
  explicit TypePatterns(std::vector<std::string> patterns);

  [[nodiscard]] bool Matches(std::string_view type) const;
  // Whether no pattern was given, so everything matches.
  [[nodiscard]] bool MatchesAll() const { return patterns_.empty(); }
  [[nodiscard]] const std::vector<std::string>& patterns() const { return patterns_; }

  // Why `pattern` is not a valid glob of event types, or nullopt when it is:
  // it must be non-empty, of letters, digits, '_', '-', '.' and '*'.
  static std::optional<std::string> Problem(std::string_view pattern);

 private:
  std::vector<std::string> patterns_;
};

// Whether `type` matches the glob `pattern` (`*` = any run of characters).
bool GlobMatches(std::string_view pattern, std::string_view type);

}  // namespace chopar::outbox
