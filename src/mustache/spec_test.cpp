// The Mustache specification's own test files, run against the renderer:
// every case of interpolation, sections, inverted sections, comments, set
// delimiters and partials (tests/data/mustache-spec), a case's "partials"
// given as a PartialMap.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "mustache/partials.hpp"
#include "mustache/text.hpp"

namespace chopar::mustache {
namespace {

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
    ++run;
    const PartialMap partials(
        test.value("partials", nlohmann::json::object()).get<std::map<std::string, std::string>>());
    const MustacheText text(test.at("template").get<std::string>(), Escaping::kHtml);
    EXPECT_EQ(text.Render(RenderContext(test.at("data")), RenderBudget{1 << 20}, &partials),
              test.at("expected").get<std::string>())
        << GetParam() << ": " << name << " — " << test.at("desc").get<std::string>();
  }
  EXPECT_GE(run, 10);
}

INSTANTIATE_TEST_SUITE_P(Files, MustacheSpec,
                         testing::Values("interpolation", "sections", "inverted", "comments",
                                         "delimiters", "partials"));

}  // namespace
}  // namespace chopar::mustache
