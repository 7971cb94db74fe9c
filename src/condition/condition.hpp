#pragma once

// The condition language of workflow steps (docs/conditions.md): a small
// expression over the notification's context, e.g.
//   notification.seen == false && user.data.plan == "pro"
// parsed once when a template is stored and evaluated in C++ each time a
// step is reached. No eval, no calls, no loops: evaluation is pure and
// bounded by the size of the parsed condition.

#include <array>
#include <cstddef>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::condition {

// The bounds Parse enforces; each one passed is a SyntaxError at the place
// it is passed.
inline constexpr std::size_t kMaxSourceBytes = 1000;
// Parentheses, array brackets and the operators ! and - each open a level.
inline constexpr std::size_t kMaxNesting = 32;
// Values (literals, paths, array literals) and operators, each occurrence once.
inline constexpr std::size_t kMaxNodes = 256;

// A condition that does not parse. what() reads "<problem> at position <n>",
// n being column(): where the problem is, counted in characters (Unicode code
// points) from 1, as a person counts in the text. position() is the same
// place as a byte offset from 0 (column() - 1 when the text is ASCII).
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(const std::string& problem, std::size_t position, std::size_t column);

  // The problem alone, without " at position <n>": "expected ')', found the end".
  [[nodiscard]] const std::string& problem() const { return problem_; }
  // 0-based byte offset into the source given to Condition::Parse
  // (source.size() for a problem at its end).
  [[nodiscard]] std::size_t position() const { return position_; }
  // 1-based column, in code points.
  [[nodiscard]] std::size_t column() const { return column_; }

 private:
  std::string problem_;
  std::size_t position_;
  std::size_t column_;
};

// The names a path may start with: the members of the context.
inline constexpr std::array<std::string_view, 6> kRoots = {"data",         "user",  "tenant",
                                                           "notification", "steps", "step"};

namespace detail {
struct Program;
}

// A parsed condition. Immutable; cheap to copy (copies share the parsed
// tree); safe to evaluate from any number of threads at once.
class Condition {
 public:
  // Parses `source` (UTF-8). Throws SyntaxError on any text that is not a
  // condition of the grammar in docs/conditions.md or passes a bound above;
  // the same text always gives the same result.
  static Condition Parse(std::string_view source);

  // The condition's value over `context`, a JSON object whose members are
  // the roots (data, user, tenant, notification, steps, step). Total: a
  // missing member, a wrong type or a context that is not an object gives
  // null at that point, never an error. Pure: reads only its arguments,
  // the same context always gives the same answer. Deep comparisons recurse
  // once per level of the context's values: give it JSON of bounded depth
  // (what chopar parses from outside is at most 64 levels deep).
  [[nodiscard]] bool Evaluate(const nlohmann::json& context) const noexcept;

  // The text it was parsed from, exactly as given.
  [[nodiscard]] const std::string& source() const;

  // The roots its paths start with, each once, sorted ("notification",
  // "user"): what the caller must supply in the context.
  [[nodiscard]] const std::vector<std::string>& roots() const;

  // The paths it reads, each once, sorted, written as in the grammar with
  // members after dots and indexes in brackets, whatever form the source
  // used: `notification.read`, `steps[0].outcome` (for `steps[0]["outcome"]`).
  [[nodiscard]] const std::vector<std::string>& paths() const;

  // Two conditions are equal when their texts are (parsing is deterministic).
  friend bool operator==(const Condition& a, const Condition& b) {
    return a.source() == b.source();
  }

 private:
  explicit Condition(std::shared_ptr<const detail::Program> program);

  std::shared_ptr<const detail::Program> program_;
};

}  // namespace chopar::condition
