// Layouts and partials as stored and cached (migration 0047): the tenant's
// own before the global one, every process told of a change, a layout in
// use kept, and the tables' CHECKs as the last line behind the API's.
#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "templates/template_store.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar::templates {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

Fragment Layout(const std::string& key, const std::string& html) {
  return ParseFragment(FragmentKind::kLayout, key, {{"html", html}});
}
Fragment PartialOf(const std::string& key, const std::string& text) {
  return ParseFragment(FragmentKind::kPartial, key, {{"text", text}});
}

// What a render in `tenant` finds of partial `key` ("(none)" when nothing).
std::string PartialIn(const TemplateLookup& lookup, const std::string& key,
                      const std::optional<std::string>& tenant = std::nullopt) {
  const RenderLibrary library = lookup.Library(tenant);
  const auto* found = library.FindPartial(key, mustache::Escaping::kNone);
  return found ? found->source() : "(none)";
}

class FragmentStoreTest : public testing::PgTest {
 protected:
  void AddTenant(const std::string& key) {
    pool_->Acquire()->ExecText(
        "INSERT INTO chopar.tenants (key, name) VALUES ('" + key + "', '" + key + "')", {});
  }
};

TEST_F(FragmentStoreTest, StoresListsAndDeletesPartials) {
  TemplateStore store(*pool_, db_->url());
  store.Start();
  FragmentStore& partials = store.partials();
  const StoredFragment put = partials.Put(PartialOf("footer", "-- {{name}}"));
  EXPECT_EQ(put.fragment->document, json({{"text", "-- {{name}}"}}));
  EXPECT_EQ(put.tenant, std::nullopt);
  EXPECT_EQ(PartialIn(store, "footer"), "-- {{name}}") << "this process sees its change at once";
  EXPECT_EQ(partials.Get("footer").created_at, put.created_at);
  partials.Put(PartialOf("footer", "v2"));
  EXPECT_EQ(PartialIn(store, "footer"), "v2");
  ASSERT_EQ(partials.List().size(), 1U);
  partials.Delete("footer");
  EXPECT_EQ(PartialIn(store, "footer"), "(none)");
  EXPECT_THROW(partials.Get("footer"), core::RequestError);
  EXPECT_THROW(partials.Delete("footer"), core::RequestError);
}

TEST_F(FragmentStoreTest, TenantsOwnStandsBeforeTheGlobalOne) {
  AddTenant("acme");
  TemplateStore store(*pool_, db_->url());
  store.Start();
  store.partials().Put(PartialOf("footer", "global"));
  store.partials().Put(PartialOf("footer", "acme's"), "acme");
  EXPECT_EQ(PartialIn(store, "footer"), "global");
  EXPECT_EQ(PartialIn(store, "footer", "acme"), "acme's");
  EXPECT_EQ(PartialIn(store, "footer", "other"), "global");
  ASSERT_EQ(store.partials().List("acme").size(), 1U);
  EXPECT_EQ(store.partials().List("acme")[0].tenant, "acme");
  ASSERT_EQ(store.partials().List().size(), 1U) << "the global list holds the global one only";
  EXPECT_THROW(store.partials().Put(PartialOf("footer", "x"), "nobody"), core::RequestError);
  // The tenant's deletion takes its own with it, in every cache.
  pool_->Acquire()->ExecText("DELETE FROM chopar.tenants WHERE key = 'acme'", {});
  EXPECT_TRUE(
      testing::WaitUntil([&] { return PartialIn(store, "footer", "acme") == "global"; }, 1s));
}

TEST_F(FragmentStoreTest, AnotherProcessSeesEveryChangeWithinASecond) {
  TemplateStore writer(*pool_, db_->url());
  db::Pool other_pool(db_->url(), 2);
  TemplateStore reader(other_pool, db_->url());
  writer.Start();
  reader.Start();
  writer.partials().Put(PartialOf("sig", "first"));
  EXPECT_TRUE(testing::WaitUntil([&] { return PartialIn(reader, "sig") == "first"; }, 1s));
  writer.layouts().Put(Layout("brand", "<main>{{{content}}}</main>"));
  EXPECT_TRUE(testing::WaitUntil(
      [&] { return reader.Library(std::nullopt).FindLayout("brand") != nullptr; }, 1s));
  writer.partials().Put(PartialOf("sig", "second"));
  EXPECT_TRUE(testing::WaitUntil([&] { return PartialIn(reader, "sig") == "second"; }, 1s));
  writer.partials().Delete("sig");
  EXPECT_TRUE(testing::WaitUntil([&] { return PartialIn(reader, "sig") == "(none)"; }, 1s));
}

// A layout a template names cannot be deleted (409 in_use) while nothing
// else could stand in for it.
TEST_F(FragmentStoreTest, LayoutInUseIsNotDeleted) {
  AddTenant("acme");
  TemplateStore store(*pool_, db_->url());
  store.Start();
  store.layouts().Put(Layout("brand", "<main>{{{content}}}</main>"));
  store.layouts().Put(Layout("brand", "<acme>{{{content}}}</acme>"), "acme");
  EXPECT_TRUE(store.layouts().LayoutExists("brand", std::nullopt));
  EXPECT_TRUE(store.layouts().LayoutExists("brand", "acme"));
  EXPECT_FALSE(store.layouts().LayoutExists("other", "acme"));
  const json body = {
      {"default_locale", "en"}, {"locales", {{"en", {{"title", "T"}}}}}, {"layout", "brand"}};
  store.Put(ParseTemplate("task.due", body), "acme");
  // acme's template falls back on the global layout: its own may go, then
  // not the global one.
  store.layouts().Delete("brand", "acme");
  try {
    store.layouts().Delete("brand");
    FAIL() << "deleted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kInUse);
    EXPECT_NE(std::string(e.what()).find("template task.due of tenant acme"), std::string::npos)
        << e.what();
  }
  store.Put(ParseTemplate("task.due", body));
  store.Delete("task.due", "acme");
  try {
    store.layouts().Delete("brand");
    FAIL() << "deleted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kInUse);
    EXPECT_NE(std::string(e.what()).find("template task.due"), std::string::npos) << e.what();
  }
  store.Delete("task.due");
  store.layouts().Delete("brand");
  EXPECT_EQ(store.Library(std::nullopt).FindLayout("brand"), nullptr);
}

TEST_F(FragmentStoreTest, TablesRefuseWhatTheApiRefuses) {
  auto conn = pool_->Acquire();
  const std::vector<std::string> refused = {
      "INSERT INTO chopar.layouts (key, html) VALUES ('Bad', '{{{content}}}')",
      "INSERT INTO chopar.layouts (key, html) VALUES ('a', 'no content')",
      "INSERT INTO chopar.layouts (key, html) VALUES ('a', repeat('x', 100001) || '{{{content}}}')",
      "INSERT INTO chopar.partials (key, text) VALUES ('-a', 'x')",
      "INSERT INTO chopar.partials (key, text) VALUES ('a', repeat('x', 50001))",
      "INSERT INTO chopar.templates (type, default_locale, locales, layout) "
      "VALUES ('a.b', 'en', '{\"en\": {}}', 'Bad')"};
  for (const std::string& sql : refused) {
    EXPECT_ANY_THROW(conn->ExecText(sql, {})) << sql;
  }
  conn->ExecText("INSERT INTO chopar.partials (key, text) VALUES ('a', 'x')", {});
  EXPECT_ANY_THROW(conn->ExecText("INSERT INTO chopar.partials (key, text) VALUES ('a', 'y')", {}))
      << "one global partial of a key";
}

TEST_F(FragmentStoreTest, ParseRefusesBadDocumentsNamingTheField) {
  const auto field_of = [](FragmentKind kind, const json& body) {
    try {
      (void)ParseFragment(kind, "k", body);
    } catch (const core::RequestError& e) {
      return e.field().value_or("(none)");
    }
    return std::string("(parsed)");
  };
  EXPECT_EQ(field_of(FragmentKind::kLayout, {{"html", "<p>no tag</p>"}}), "html");
  EXPECT_EQ(field_of(FragmentKind::kLayout, json::object()), "html");
  EXPECT_EQ(field_of(FragmentKind::kLayout, {{"html", "{{{content}}}{{#a}}"}}), "html");
  EXPECT_EQ(field_of(FragmentKind::kLayout, {{"html", "{{{content}}}"}, {"text", 3}}), "text");
  EXPECT_EQ(field_of(FragmentKind::kLayout, {{"html", "{{{content}}}"}, {"css", "x"}}), "css");
  EXPECT_EQ(field_of(FragmentKind::kLayout,
                     {{"html", std::string(kMaxLayoutBytes, 'x') + "{{{content}}}"}}),
            "html");
  EXPECT_EQ(field_of(FragmentKind::kPartial, {{"text", std::string(kMaxPartialBytes + 1, 'x')}}),
            "text");
  EXPECT_EQ(field_of(FragmentKind::kPartial, {{"html", "x"}, {"text", "y"}}), "html");
  EXPECT_EQ(field_of(FragmentKind::kLayout, {{"html", "{{{content}}}"}, {"key", "k"}}), "(parsed)")
      << "what GET shows may be sent back";
}

}  // namespace
}  // namespace chopar::templates
