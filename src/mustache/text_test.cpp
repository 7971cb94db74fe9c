// The render budget (RenderBudget): a small template whose sections nest
// over the same list multiplies its work by the list's length at each level.
// Such a render is stopped as soon as its output passes the limit, or, when
// it writes nothing, once it has taken its steps; not after it has run.

#include "mustache/text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace chopar::mustache {
namespace {

using nlohmann::json;

// `levels` sections of `a` nested, `inner` in the innermost.
std::string NestedSections(int levels, const std::string& inner) {
  std::string source;
  for (int i = 0; i < levels; ++i) source += "{{#a}}";
  source += inner;
  for (int i = 0; i < levels; ++i) source += "{{/a}}";
  return source;
}

// {"a": [0, 1, …, 299]}
json ThreeHundredItems() {
  json list = json::array();
  for (int i = 0; i < 300; ++i) list.push_back(i);
  return {{"a", list}};
}

// Five levels over 300 items would write 300^5 × 10 bytes (24 TB), all on
// one line, which the engine holds until the line ends: the render is
// stopped within one tag's text of the limit, after a few thousand steps.
TEST(MustacheTextBudget, NestedSectionsBombIsStoppedOnceItsOutputPassesTheLimit) {
  const MustacheText text(NestedSections(5, "0123456789"), Escaping::kNone);
  const RenderContext context(ThreeHundredItems());
  constexpr std::size_t kLimit = 64 * 1024;
  try {
    (void)text.Render(context, RenderBudget{kLimit});
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kOutput);
    EXPECT_FALSE(e.finished());
    EXPECT_GT(e.bytes(), kLimit);
    EXPECT_LE(e.bytes(), kLimit + 10) << "held at most one more text than the limit";
    EXPECT_LT(e.steps(), 2 * kLimit / 10) << "stopped early, not after the whole render";
    EXPECT_EQ(std::string(e.what()).rfind("stopped at ", 0), 0u) << e.what();
  }
}

// The same with line breaks: output handed on line by line counts as well.
TEST(MustacheTextBudget, NestedSectionsBombOfLinesIsStoppedOnceItsOutputPassesTheLimit) {
  const MustacheText text(NestedSections(5, "0123456789\n"), Escaping::kNone);
  try {
    (void)text.Render(RenderContext(ThreeHundredItems()), RenderBudget{64 * 1024});
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kOutput);
    EXPECT_LE(e.bytes(), 64 * 1024 + 11);
  }
}

// Four levels over 300 items and nothing written: 8.1 billion section items
// entered. The render is stopped at its step budget with nothing held.
TEST(MustacheTextBudget, NestedSectionsWithoutOutputAreStoppedByTheStepBudget) {
  const MustacheText text(NestedSections(4, ""), Escaping::kNone);
  try {
    (void)text.Render(RenderContext(ThreeHundredItems()), RenderBudget{1024});
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kSteps);
    EXPECT_EQ(e.steps(), kMaxRenderSteps + 1);
    EXPECT_EQ(e.bytes(), 0u);
  }
}

// A list rendered within the budget is whole, its last byte included.
TEST(MustacheTextBudget, RenderWithinTheBudgetIsWhole) {
  const MustacheText text("{{#a}}{{.}},{{/a}}", Escaping::kNone);
  json list = json::array();
  for (int i = 0; i < 10; ++i) list.push_back(i);
  EXPECT_EQ(text.Render(RenderContext(json{{"a", list}}), RenderBudget{20}),
            "0,1,2,3,4,5,6,7,8,9,");
  EXPECT_THROW((void)text.Render(RenderContext(json{{"a", list}}), RenderBudget{19}),
               RenderLimitError);
}

}  // namespace
}  // namespace chopar::mustache
