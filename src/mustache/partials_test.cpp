// Partials ({{> name}}) beyond the spec's cases: how deep they may nest,
// the render budget across them, nested indentation, and renders of one
// text with partials from many threads at once.

#include "mustache/partials.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace chopar::mustache {
namespace {

using nlohmann::json;
using Sources = std::map<std::string, std::string>;

std::string Render(const std::string& source, const PartialMap& partials,
                   const json& data = json::object(), std::size_t max_output = 1 << 20) {
  return MustacheText(source, Escaping::kHtml)
      .Render(RenderContext(data), RenderBudget{max_output}, &partials);
}

TEST(MustachePartials, MissingPartialRendersNothing) {
  EXPECT_EQ(Render("[{{> nope}}]", PartialMap({})), "[]");
  EXPECT_EQ(MustacheText("[{{> nope}}]", Escaping::kNone)
                .Render(RenderContext(json::object()), RenderBudget{100}),
            "[]")
      << "no partial source at all";
}

// A partial escapes as the text that includes it.
TEST(MustachePartials, PartialIsEscapedAsItsIncludingText) {
  const PartialMap partials(Sources{{"p", "{{v}}"}});
  const json data = {{"v", "<b>"}};
  EXPECT_EQ(Render("{{> p}}", partials, data), "&lt;b&gt;");
  EXPECT_EQ(MustacheText("{{> p}}", Escaping::kNone)
                .Render(RenderContext(data), RenderBudget{100}, &partials),
            "<b>");
}

// Ten levels render; the eleventh is a render error, whatever the data.
TEST(MustachePartials, NestingDeeperThanTenIsARenderError) {
  std::map<std::string, std::string> chain;
  for (int i = 1; i <= 11; ++i)
    chain["p" + std::to_string(i)] = std::to_string(i) + "{{> p" + std::to_string(i + 1) + "}}";
  EXPECT_EQ(Render("{{> p2}}", PartialMap(chain)), "234567891011") << "p2 … p11: ten levels";
  try {
    (void)Render("{{> p1}}", PartialMap(chain));
    FAIL() << "rendered eleven levels";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kPartialDepth);
    EXPECT_NE(std::string(e.what()).find("more than 10 deep"), std::string::npos) << e.what();
  }
}

TEST(MustachePartials, SelfInclusionWithoutEndIsARenderError) {
  try {
    (void)Render("{{> me}}", PartialMap(Sources{{"me", "x{{> me}}"}}));
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kPartialDepth);
    EXPECT_EQ(e.bytes(), 10u) << "ten x held when stopped";
  }
}

// Each level includes the next twice: 2^10 copies of a 1 KB text at the
// bottom, stopped once the output passes the limit.
TEST(MustachePartials, OutputBudgetHoldsAcrossPartials) {
  std::map<std::string, std::string> doubling;
  for (int i = 1; i < 10; ++i) {
    const std::string next = "{{> p" + std::to_string(i + 1) + "}}";
    doubling["p" + std::to_string(i)] = next + next;
  }
  doubling["p10"] = std::string(1024, 'x');
  try {
    (void)Render("{{> p1}}", PartialMap(doubling), json::object(), 64 * 1024);
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kOutput);
    EXPECT_LE(e.bytes(), 64 * 1024 + 1024);
  }
}

TEST(MustachePartials, StepBudgetCountsPartialsIncluded) {
  json list = json::array();
  for (int i = 0; i < 1000; ++i) list.push_back(i);
  // 1000 × 1000 inclusions of an empty-rendering partial.
  const PartialMap partials(Sources{{"inner", "{{#a}}{{> leaf}}{{/a}}"}, {"leaf", "{{! nothing }}"}});
  try {
    (void)Render("{{#a}}{{> inner}}{{/a}}", partials, json{{"a", list}});
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kSteps);
  }
}

// A standalone tag inside an indented partial indents by both.
TEST(MustachePartials, NestedStandalonePartialsIndentByBoth) {
  const PartialMap partials(
      {{"outer", "<ul>\n  {{> inner}}\n</ul>\n"}, {"inner", "<li>a</li>\n<li>b</li>\n"}});
  EXPECT_EQ(Render("<div>\n  {{> outer}}\n</div>\n", partials),
            "<div>\n  <ul>\n    <li>a</li>\n    <li>b</li>\n  </ul>\n</div>\n");
}

// Indentation multiplies a partial's lines by its depth; the output limit
// still stops it within a line.
TEST(MustachePartials, IndentationCountsInTheOutputBudget) {
  const std::string lines(2000, '\n');
  const std::string indent(1000, ' ');
  const PartialMap partials(Sources{{"p", lines}});
  try {
    (void)Render(indent + "{{> p}}\n", partials, json::object(), 10 * 1024);
    FAIL() << "rendered";
  } catch (const RenderLimitError& e) {
    EXPECT_EQ(e.limit(), RenderLimitError::Limit::kOutput);
    EXPECT_LE(e.bytes(), 10 * 1024 + 1001);
  }
}

// One parsed text and one set of partials, rendered from eight threads at
// once (TSan's build checks it; here, every render is whole and the same).
TEST(MustachePartials, ConcurrentRendersWithPartialsAgree) {
  const PartialMap partials(
      {{"row", "{{name}}: {{> cell}}\n"}, {"cell", "[{{value}}]"}, {"footer", "-- {{n}}"}});
  const MustacheText text("{{#rows}}\n  {{> row}}\n{{/rows}}\n{{> footer}}", Escaping::kHtml);
  json rows = json::array();
  for (int i = 0; i < 50; ++i) rows.push_back({{"name", "r" + std::to_string(i)}, {"value", i}});
  const RenderContext context(json{{"rows", rows}, {"n", 50}});
  const std::string expected = text.Render(context, RenderBudget{1 << 20}, &partials);
  ASSERT_NE(expected.find("  r49: [49]\n-- 50"), std::string::npos) << expected;
  std::vector<std::thread> threads;
  std::vector<int> mismatches(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        if (text.Render(context, RenderBudget{1 << 20}, &partials) != expected) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(8, 0));
}

}  // namespace
}  // namespace chopar::mustache
