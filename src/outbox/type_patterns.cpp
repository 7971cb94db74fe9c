#include "outbox/type_patterns.hpp"

#include <algorithm>
#include <stdexcept>

namespace chopar::outbox {

TypePatterns::TypePatterns(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  for (const std::string& pattern : patterns_) {
    if (auto problem = Problem(pattern)) throw std::invalid_argument(*problem);
  }
}

bool TypePatterns::Matches(std::string_view type) const {
  return patterns_.empty() ||
         std::any_of(patterns_.begin(), patterns_.end(),
                     [&](const std::string& p) { return GlobMatches(p, type); });
}

std::optional<std::string> TypePatterns::Problem(std::string_view pattern) {
  if (pattern.empty()) return "an event type pattern is empty";
  for (char c : pattern) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.' || c == '*';
    if (!ok) return "event type pattern \"" + std::string(pattern) + "\" holds '" + c + "'";
  }
  return std::nullopt;
}

bool GlobMatches(std::string_view pattern, std::string_view type) {
  // Iterative matching with one backtrack point (the last '*'): linear in
  // practice, never exponential.
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume = 0;
  while (t < type.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == type[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace chopar::outbox
