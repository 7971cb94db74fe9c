// What a notification renders with: the tenant's own partials and layouts
// before the global ones, a layout with partials, and a template's layout.
#include "templates/library.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "templates/template.hpp"

namespace chopar::templates {
namespace {

using nlohmann::json;

std::shared_ptr<const FragmentStore::Map> MapOf(
    FragmentKind kind, const std::vector<std::tuple<std::string, std::string, json>>& rows) {
  auto map = std::make_shared<FragmentStore::Map>();
  for (const auto& [cache_key, key, body] : rows)
    map->emplace(cache_key, std::make_shared<const Fragment>(ParseFragment(kind, key, body)));
  return map;
}

TEST(RenderLibrary, TheTenantsOwnStandsBeforeTheGlobalOne) {
  const auto partials = MapOf(FragmentKind::kPartial, {{"sig", "sig", {{"text", "global"}}},
                                                       {"acme/sig", "sig", {{"text", "acme"}}}});
  const auto layouts = MapOf(FragmentKind::kLayout,
                             {{"brand", "brand", {{"html", "<g>{{{content}}}{{> sig}}</g>"}}}});
  const RenderLibrary global(layouts, partials, std::nullopt);
  const RenderLibrary acme(layouts, partials, "acme");
  EXPECT_EQ(global.FindPartial("sig", mustache::Escaping::kHtml)->source(), "global");
  EXPECT_EQ(acme.FindPartial("sig", mustache::Escaping::kHtml)->source(), "acme");
  EXPECT_EQ(acme.FindPartial("none", mustache::Escaping::kHtml), nullptr);
  EXPECT_EQ(RenderLibrary().FindPartial("sig", mustache::Escaping::kNone), nullptr);
  EXPECT_EQ(RenderLibrary().FindLayout("brand"), nullptr);

  // The global layout, in acme, includes acme's own partial.
  const BoundLayout bound{acme.FindLayout("brand"), acme};
  ASSERT_NE(bound.layout, nullptr);
  EXPECT_EQ(bound.Html({{"content", "<p>x</p>"}}), "<g><p>x</p>acme</g>");
  EXPECT_EQ(bound.Text({{"content", "x"}}), "x") << "no text: the content as it is";
}

TEST(RenderLibrary, ALayoutWhosePartialsNestWithoutEndIsARenderError) {
  const auto partials = MapOf(FragmentKind::kPartial, {{"loop", "loop", {{"text", "{{> loop}}"}}}});
  const auto layouts =
      MapOf(FragmentKind::kLayout, {{"brand", "brand", {{"html", "{{{content}}}{{> loop}}"}}}});
  const RenderLibrary library(layouts, partials, std::nullopt);
  const BoundLayout bound{library.FindLayout("brand"), library};
  try {
    (void)bound.Html({{"content", "x"}});
    FAIL() << "rendered";
  } catch (const RenderError& e) {
    EXPECT_EQ(e.target(), Target::kEmailHtml);
    EXPECT_NE(std::string(e.what()).find("layout email.html partials nested more than 10 deep"),
              std::string::npos)
        << e.what();
  }
}

TEST(TemplateLayout, ALayoutIsNullOrAKey) {
  const json base = {{"default_locale", "en"}, {"locales", {{"en", {{"title", "T"}}}}}};
  EXPECT_EQ(ParseTemplate("task.due", base).layout, std::nullopt);
  json named = base;
  named["layout"] = "brand.v2";
  EXPECT_EQ(ParseTemplate("task.due", named).layout, "brand.v2");
  for (const json& bad : {json("Brand"), json(3), json(""), json(std::string(101, 'a'))}) {
    named["layout"] = bad;
    try {
      (void)ParseTemplate("task.due", named);
      FAIL() << bad.dump();
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.field(), "layout") << bad.dump();
    }
  }
}

}  // namespace
}  // namespace chopar::templates
