// The condition language of workflow steps (docs/conditions.md): any text
// either parses or throws condition::SyntaxError with its position inside
// the text; a condition that parses evaluates over a few fixed contexts
// without throwing (Evaluate is noexcept: a throw would abort), gives the
// same answer twice and through a re-parse of its source(), and its
// negation `!(…)` gives the opposite answer.
#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "condition/condition.hpp"
#include "fuzz_support.hpp"

using namespace chopar;
using nlohmann::json;

namespace {

// The context the workflow engine builds, and ones with every root of an
// unexpected type, missing, or holding edge values.
const std::vector<json>& Contexts() {
  static const std::vector<json> contexts = [] {
    std::vector<json> all;
    all.push_back(json::parse(R"({
      "data": {"project": "chopar", "count": 3, "ratio": 0.5, "zero": 0, "empty": "",
               "list": [1, "two", null, [3], {"a": 1}], "nested": {"a": {"b": true}},
               "odd key": "x", "big": 18446744073709551615, "neg": -9223372036854775808,
               "in": 1, "null": null, "true": true, "x": "é😀"},
      "user": {"id": 1, "locale": "uz", "timezone": "Asia/Tashkent", "data": {"plan": "pro"}},
      "tenant": "acme",
      "notification": {"id": 10, "type": "comment", "category": null, "critical": false,
                       "tags": ["urgent", "billing"], "seen": false, "read": true, "archived": false},
      "steps": [{"outcome": "sent", "channel": "in_app"}, {"outcome": "failed", "channel": "push"}],
      "step": {"first": {"outcome": "sent", "channel": "in_app"},
               "push_first": {"outcome": "failed", "channel": "push"}}
    })"));
    all.push_back(json::object());
    all.push_back(json(nullptr));
    all.push_back(json::parse(R"({
      "data": [[], {}, "", 0, -0.0, 1e308, -1e-308, false],
      "user": "u", "tenant": null, "notification": 0, "steps": {"0": 1}, "step": []
    })"));
    json odd = {{"data",
                 {{"nan", std::numeric_limits<double>::quiet_NaN()},
                  {"inf", std::numeric_limits<double>::infinity()}}}};
    all.push_back(odd);
    return all;
  }();
  return contexts;
}

std::vector<bool> Results(const condition::Condition& condition) {
  std::vector<bool> results;
  for (const json& context : Contexts()) results.push_back(condition.Evaluate(context));
  return results;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::AsText(data, size);
  std::optional<condition::Condition> parsed;
  try {
    parsed = condition::Condition::Parse(text);
  } catch (const condition::SyntaxError& e) {
    fuzz::Require(e.position() <= text.size(), "error position inside the text");
    fuzz::Require(e.column() >= 1 && e.column() <= e.position() + 1, "column counts characters");
    fuzz::Require(
        std::string(e.what()) == e.problem() + " at position " + std::to_string(e.column()),
        "the message names the position");
    try {
      condition::Condition::Parse(text);
      fuzz::Require(false, "a refused text is refused again");
    } catch (const condition::SyntaxError& again) {
      fuzz::Require(again.position() == e.position() && again.problem() == e.problem(),
                    "the same error again");
    }
    return 0;
  }
  const condition::Condition& condition = *parsed;
  fuzz::Require(condition.source() == text, "source() is the text");
  fuzz::Require(text.size() <= condition::kMaxSourceBytes, "within the length bound");
  const auto& roots = condition.roots();
  fuzz::Require(std::is_sorted(roots.begin(), roots.end()) &&
                    std::adjacent_find(roots.begin(), roots.end()) == roots.end(),
                "roots sorted, each once");
  for (const std::string& root : roots) {
    fuzz::Require(std::find(condition::kRoots.begin(), condition::kRoots.end(), root) !=
                      condition::kRoots.end(),
                  "roots are known names");
  }

  const std::vector<bool> results = Results(condition);
  fuzz::Require(Results(condition) == results, "evaluation is deterministic");
  const auto reparsed = condition::Condition::Parse(condition.source());
  fuzz::Require(Results(reparsed) == results, "a re-parse of source() means the same");
  fuzz::Require(reparsed.roots() == roots, "a re-parse reads the same roots");

  // Its negation, when that stays within the bounds, is its opposite.
  std::optional<condition::Condition> negated;
  try {
    negated = condition::Condition::Parse("!(" + std::string(text) + ")");
  } catch (const condition::SyntaxError& e) {
    fuzz::Require(e.problem().find("longer than") == 0 || e.problem().find("nested deeper") == 0 ||
                      e.problem().find("more than") == 0,
                  "a negation is refused only for a bound");
    return 0;
  }
  const std::vector<bool> opposite = Results(*negated);
  for (std::size_t i = 0; i < results.size(); ++i) {
    fuzz::Require(opposite[i] == !results[i], "!(c) is the opposite of c");
  }
  return 0;
}
