// The Mustache specification's own test files, run against the renderer:
// every case of interpolation, sections, inverted sections, comments and set
// delimiters (tests/data/mustache-spec; the two delimiter cases that need
// partials are skipped by name, partials not being offered).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "mustache/text.hpp"

namespace chopar::mustache {
namespace {

const std::set<std::string> kNeedPartials = {"Partial Inheritence", "Post-Partial Behavior"};

nlohmann::json LoadSpec(const std::string& name) {
  std::ifstream in(std::string(CHOPAR_MUSTACHE_SPEC_DIR) + "/" + name + ".json");
  EXPECT_TRUE(in.good()) << name;
  return nlohmann::json::parse(in);
}

class MustacheSpec : public testing::TestWithParam<std::string> {};

TEST_P(MustacheSpec, EveryCasePasses) {
  const auto spec = LoadSpec(GetParam());
  int run = 0;
  for (const auto& test : spec.at("tests")) {
    const std::string name = test.at("name");
    if (kNeedPartials.contains(name)) continue;
    ++run;
    const MustacheText text(test.at("template").get<std::string>(), Escaping::kHtml);
    EXPECT_EQ(text.Render(RenderContext(test.at("data")), RenderBudget{1 << 20}),
              test.at("expected").get<std::string>())
        << GetParam() << ": " << name << " — " << test.at("desc").get<std::string>();
  }
  EXPECT_GT(run, 10);
}

INSTANTIATE_TEST_SUITE_P(Files, MustacheSpec,
                         testing::Values("interpolation", "sections", "inverted", "comments",
                                         "delimiters"));

}  // namespace
}  // namespace chopar::mustache
