// The routes of docs/api.md "Versions and drafts" for templates, over HTTP
// against PostgreSQL: every route and status, restore, drafts and publish,
// a draft rendered by preview and never sent.
#include <gtest/gtest.h>

#include "http/fragment_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/template_routes.hpp"
#include "http/version_routes.hpp"
#include "templates/template_store.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

json Body(const std::string& title) {
  return {{"default_locale", "en"}, {"locales", {{"en", {{"title", title}}}}}};
}

class VersionRoutesTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    templates_ = std::make_unique<templates::TemplateStore>(*pool_, db_->url());
    templates_->Start();
    notify_ = std::make_unique<hub::NotifyService>(*pool_, clock_, metrics_, templates_.get());
    StartServer(DefaultSettings());
    PutUser(1, {{"locale", "en"}});
  }

  void TearDown() override {
    HttpServerPgTest::TearDown();
    if (templates_) templates_->Stop();
  }

  void AddRoutes(Router& router) override {
    if (!templates_) return;  // the fixture's first server, before SetUp made the store
    RegisterTemplateRoutes(router, *templates_, *users_);
    RegisterTemplateVersionRoutes(router, *templates_);
    RegisterFragmentRoutes(router, *templates_);
    RegisterFragmentVersionRoutes(router, *templates_);
  }

  void PutTemplate(const std::string& title, const std::string& query = "") {
    const auto response =
        client().Put("/v1/templates/task.due" + query, Body(title).dump(), {kAuth});
    ASSERT_EQ(response.status, 200) << response.body;
  }

  json Versions(const std::string& query = "") {
    const auto response = client().Get("/v1/templates/task.due/versions" + query, {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json();
  }

  std::string LiveTitle() {
    const auto response = client().Get("/v1/templates/task.due", {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json()["locales"]["en"]["title"];
  }

  // The title of the notification a POST /v1/notifications of task.due made.
  std::string SentTitle() {
    const auto sent = client().Post("/v1/notifications",
                                    json({{"user_id", 1}, {"type", "task.due"}}).dump(), {kAuth});
    EXPECT_EQ(sent.status, 201) << sent.body;
    const auto shown = client().Get("/v1/notifications/" + sent.Json()["id"].dump(), {kAuth});
    EXPECT_EQ(shown.status, 200) << shown.body;
    return shown.Json()["title"];
  }

  std::unique_ptr<templates::TemplateStore> templates_;
};

TEST_F(VersionRoutesTest, EveryPutIsAVersionListedNewestFirst) {
  EXPECT_EQ(Versions(), json({{"versions", json::array()}, {"next_cursor", nullptr}}));
  PutTemplate("first");
  PutTemplate("second");
  const json listed = Versions();
  ASSERT_EQ(listed["versions"].size(), 2U) << listed;
  EXPECT_EQ(listed["versions"][0]["version"], 2);
  EXPECT_EQ(listed["versions"][0]["live"], true);
  EXPECT_EQ(listed["versions"][1]["version"], 1);
  EXPECT_EQ(listed["versions"][1]["live"], false);
  EXPECT_TRUE(listed["versions"][0]["created_at"].is_string()) << listed;
  EXPECT_TRUE(listed["versions"][0].contains("created_by")) << listed;
  EXPECT_EQ(client().Get("/v1/templates/task.due", {kAuth}).Json()["version"], 2)
      << "GET shows the live version";

  const auto one = client().Get("/v1/templates/task.due/versions/1", {kAuth});
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.Json()["version"], 1);
  EXPECT_EQ(one.Json()["document"], Body("first"));

  // A PUT of what GET shows stores the body without GET's own members.
  auto shown = client().Get("/v1/templates/task.due", {kAuth}).Json();
  ASSERT_EQ(client().Put("/v1/templates/task.due", shown.dump(), {kAuth}).status, 200);
  const json third = client().Get("/v1/templates/task.due/versions/3", {kAuth}).Json();
  for (const char* member : {"type", "tenant", "created_at", "updated_at"}) {
    EXPECT_FALSE(third["document"].contains(member)) << third;
  }

  // Paged: ?limit= and the cursor.
  const json page = Versions("?limit=2");
  ASSERT_EQ(page["versions"].size(), 2U);
  ASSERT_TRUE(page["next_cursor"].is_string()) << page;
  const json rest = Versions("?limit=2&cursor=" + page["next_cursor"].get<std::string>());
  ASSERT_EQ(rest["versions"].size(), 1U) << rest;
  EXPECT_EQ(rest["versions"][0]["version"], 1);
  EXPECT_EQ(rest["next_cursor"], nullptr);

  // A deleted template keeps its history; none of it is live.
  ASSERT_EQ(client().Delete("/v1/templates/task.due", {kAuth}).status, 204);
  EXPECT_EQ(Versions()["versions"][0]["live"], false);
}

TEST_F(VersionRoutesTest, RestoreMakesAnOldVersionLiveAsTheNext) {
  PutTemplate("first");
  PutTemplate("second");
  const auto restored = client().Post("/v1/templates/task.due/versions/1/restore", "", {kAuth});
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json()["type"], "task.due");
  EXPECT_EQ(restored.Json()["locales"]["en"]["title"], "first");
  EXPECT_EQ(restored.Json()["version"], 3);
  EXPECT_EQ(LiveTitle(), "first");
  EXPECT_EQ(SentTitle(), "first") << "the next notification uses it";
  const json listed = Versions();
  EXPECT_EQ(listed["versions"][0]["version"], 3);
  EXPECT_EQ(listed["versions"][0]["live"], true);
}

TEST_F(VersionRoutesTest, ARestoreOfADocumentTodayRefusesIsAConflictNamingTheField) {
  PutTemplate("first");
  db_->Scalar(
      "INSERT INTO chopar.template_versions (kind, key, version, document) VALUES "
      "('template', 'task.due', 2, '{\"default_locale\": \"en\", \"locales\": "
      "{\"en\": {\"title\": \"{{#open}}\"}}}') RETURNING 1");
  const auto refused = client().Post("/v1/templates/task.due/versions/2/restore", "", {kAuth});
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_EQ(refused.ErrorCode(), "conflict");
  EXPECT_EQ(refused.Json()["error"]["field"], "locales.en.title") << refused.body;
  EXPECT_EQ(LiveTitle(), "first");
}

// A version or a draft naming a layout deleted since is refused by restore
// and publish as PUT refuses it (400 invalid_field layout), and nothing
// changes: the live template, its versions, the draft.
TEST_F(VersionRoutesTest, RestoreAndPublishRefuseALayoutThatIsGoneAsPutDoes) {
  db_->Scalar("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme') RETURNING 1");
  ASSERT_EQ(client()
                .Put("/v1/layouts/brand", json({{"html", "<b>{{{content}}}</b>"}}).dump(), {kAuth})
                .status,
            200);
  json branded = Body("branded");
  branded["layout"] = "brand";
  for (const std::string query : {"", "?tenant=acme"}) {
    ASSERT_EQ(client().Put("/v1/templates/task.due" + query, branded.dump(), {kAuth}).status, 200);
    PutTemplate("plain", query);
    ASSERT_EQ(client().Put("/v1/templates/task.due/draft" + query, branded.dump(), {kAuth}).status,
              200);
  }
  ASSERT_EQ(client().Delete("/v1/layouts/brand", {kAuth}).status, 204);
  const auto put = client().Put("/v1/templates/task.due", branded.dump(), {kAuth});
  ASSERT_EQ(put.status, 400) << put.body;
  // A draft may name a layout that does not exist yet (docs/api.md).
  ASSERT_EQ(client().Put("/v1/templates/task.due/draft", branded.dump(), {kAuth}).status, 200);

  for (const std::string query : {"", "?tenant=acme"}) {
    SCOPED_TRACE(query);
    for (const std::string& path : {"/v1/templates/task.due/versions/1/restore" + query,
                                    "/v1/templates/task.due/publish" + query}) {
      const auto refused = client().Post(path, "", {kAuth});
      EXPECT_EQ(refused.status, put.status) << path << " " << refused.body;
      EXPECT_EQ(refused.ErrorCode(), put.ErrorCode()) << path;
      EXPECT_EQ(refused.Json()["error"]["field"], "layout") << path << " " << refused.body;
    }
    const auto live = client().Get("/v1/templates/task.due" + query, {kAuth});
    EXPECT_EQ(live.Json()["locales"]["en"]["title"], "plain") << live.body;
    EXPECT_EQ(live.Json()["version"], 2) << live.body;
    EXPECT_EQ(Versions(query)["versions"].size(), 2U);
    EXPECT_EQ(client().Get("/v1/templates/task.due/draft" + query, {kAuth}).status, 200)
        << "the draft stays";
  }
  EXPECT_NE(client()
                .Post("/v1/templates/task.due/publish?tenant=acme", "", {kAuth})
                .Json()["error"]["message"]
                .get<std::string>()
                .find("neither tenant acme's own nor a global one"),
            std::string::npos);

  // The layout back, both go through.
  ASSERT_EQ(client()
                .Put("/v1/layouts/brand", json({{"html", "<i>{{{content}}}</i>"}}).dump(), {kAuth})
                .status,
            200);
  EXPECT_EQ(client().Post("/v1/templates/task.due/versions/1/restore", "", {kAuth}).status, 200);
  EXPECT_EQ(client().Post("/v1/templates/task.due/publish", "", {kAuth}).status, 200);
  EXPECT_EQ(Versions()["versions"].size(), 4U);
}

TEST_F(VersionRoutesTest, ADraftIsPreviewedAndNeverSentUntilPublished) {
  PutTemplate("live");
  EXPECT_EQ(client().Get("/v1/templates/task.due/draft", {kAuth}).status, 404);

  const auto put = client().Put("/v1/templates/task.due/draft", Body("drafted").dump(), {kAuth});
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.Json()["type"], "task.due");
  EXPECT_EQ(put.Json()["tenant"], nullptr);
  EXPECT_EQ(put.Json()["document"], Body("drafted"));
  const auto got = client().Get("/v1/templates/task.due/draft", {kAuth});
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Json()["document"], Body("drafted"));

  // Preview renders the draft when asked, the live template otherwise.
  const auto preview = [this](const json& body) {
    const auto response = client().Post("/v1/templates/preview", body.dump(), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json()["title"];
  };
  EXPECT_EQ(preview({{"type", "task.due"}, {"draft", true}}), "drafted");
  EXPECT_EQ(preview({{"type", "task.due"}, {"draft", false}}), "live");
  EXPECT_EQ(preview({{"type", "task.due"}}), "live");

  // Never sent: notify uses the live template.
  EXPECT_EQ(SentTitle(), "live");
  EXPECT_EQ(LiveTitle(), "live");
  EXPECT_EQ(Versions()["versions"].size(), 1U) << "a draft is not a version";

  const auto published = client().Post("/v1/templates/task.due/publish", "", {kAuth});
  ASSERT_EQ(published.status, 200) << published.body;
  EXPECT_EQ(published.Json()["locales"]["en"]["title"], "drafted");
  EXPECT_EQ(SentTitle(), "drafted");
  EXPECT_EQ(Versions()["versions"][0]["version"], 2);
  EXPECT_EQ(client().Get("/v1/templates/task.due/draft", {kAuth}).status, 404);
  EXPECT_EQ(client().Post("/v1/templates/task.due/publish", "", {kAuth}).status, 404);
  EXPECT_EQ(preview({{"type", "task.due"}, {"draft", true}}), "drafted")
      << "without a draft, the live template";
  const auto neither = client().Post(
      "/v1/templates/preview", json({{"type", "other.type"}, {"draft", true}}).dump(), {kAuth});
  EXPECT_EQ(neither.status, 404) << neither.body;

  // A draft of a type with no template yet, published, creates it.
  ASSERT_EQ(client().Put("/v1/templates/new.type/draft", Body("new").dump(), {kAuth}).status, 200);
  EXPECT_EQ(client().Get("/v1/templates/new.type", {kAuth}).status, 404);
  EXPECT_EQ(client().Post("/v1/templates/new.type/publish", "", {kAuth}).status, 200);
  EXPECT_EQ(client().Get("/v1/templates/new.type", {kAuth}).status, 200);

  // DELETE: 204, then 404.
  ASSERT_EQ(client().Put("/v1/templates/task.due/draft", Body("x").dump(), {kAuth}).status, 200);
  EXPECT_EQ(client().Delete("/v1/templates/task.due/draft", {kAuth}).status, 204);
  EXPECT_EQ(client().Delete("/v1/templates/task.due/draft", {kAuth}).status, 404);
}

// "draft": true renders with the drafts of layouts and partials too, in
// place of the live ones of their keys (a draft of a key not stored yet
// beside them), a tenant's own before the global ones; without it, and in
// what is sent, only the live ones.
TEST_F(VersionRoutesTest, PreviewRendersTheDraftsOfLayoutsAndPartials) {
  db_->Scalar("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme') RETURNING 1");
  const auto put = [this](const std::string& path, const json& body) {
    const auto response = client().Put(path, body.dump(), {kAuth});
    ASSERT_EQ(response.status, 200) << path << " " << response.body;
  };
  put("/v1/partials/footer", json({{"text", "live footer"}}));
  put("/v1/layouts/brand", json({{"html", "<div class=live>{{{content}}}{{> footer}}</div>"}}));
  json body = Body("Due{{> sig}}");
  body["layout"] = "brand";
  body["locales"]["en"]["email"] = {{"subject", "Due"}, {"html", "<p>{{> footer}}</p>"}};
  put("/v1/templates/task.due", body);
  put("/v1/partials/footer/draft", json({{"text", "draft footer"}}));
  put("/v1/partials/sig/draft", json({{"text", " signed"}}));
  put("/v1/layouts/brand/draft",
      json({{"html", "<div class=draft>{{{content}}}{{> footer}}</div>"}}));
  put("/v1/partials/footer/draft?tenant=acme", json({{"text", "acme footer"}}));

  const auto preview = [this](const json& request, const std::string& query = "") {
    const auto response = client().Post("/v1/templates/preview" + query, request.dump(), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json();
  };
  const json live = preview({{"type", "task.due"}});
  EXPECT_EQ(live["title"], "Due");
  EXPECT_EQ(live["email"]["html"], "<p>live footer</p>");
  EXPECT_EQ(live["email_layout"]["html"].get<std::string>().find("draft"), std::string::npos)
      << live;

  const json drafted = preview({{"type", "task.due"}, {"draft", true}});
  EXPECT_EQ(drafted["title"], "Due signed") << "a partial only drafted so far";
  EXPECT_EQ(drafted["email"]["html"], "<p>draft footer</p>");
  const std::string layout = drafted["email_layout"]["html"];
  EXPECT_NE(layout.find("<div class=draft>"), std::string::npos) << layout;
  EXPECT_NE(layout.find("</p>\ndraft footer</div>"), std::string::npos)
      << "the layout's partials are the drafts too: " << layout;

  const json acme = preview({{"type", "task.due"}, {"draft", true}}, "?tenant=acme");
  EXPECT_EQ(acme["email"]["html"], "<p>acme footer</p>") << "the tenant's own draft first";
  EXPECT_EQ(acme["title"], "Due signed") << "then the global drafts";
  EXPECT_EQ(preview({{"type", "task.due"}}, "?tenant=acme")["email"]["html"], "<p>live footer</p>");
  // An inline block, with the drafts.
  EXPECT_EQ(preview({{"template", {{"title", "{{> footer}}"}}}, {"draft", true}})["title"],
            "draft footer");
  EXPECT_EQ(preview({{"template", {{"title", "{{> footer}}"}}}})["title"], "live footer");

  EXPECT_EQ(SentTitle(), "Due") << "drafts are never sent";

  // A draft that no longer passes today's rules: 409 naming its field.
  db_->Scalar(
      "UPDATE chopar.template_drafts SET document = '{\"text\": \"{{#open}}\"}' "
      "WHERE kind = 'partial' AND key = 'sig' RETURNING 1");
  const auto refused = client().Post("/v1/templates/preview",
                                     json({{"type", "task.due"}, {"draft", true}}).dump(), {kAuth});
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_EQ(refused.Json()["error"]["field"], "text") << refused.body;
}

TEST_F(VersionRoutesTest, ATenantsVersionsAndDraftAreItsOwn) {
  db_->Scalar("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme') RETURNING 1");
  PutTemplate("global");
  PutTemplate("acme 1", "?tenant=acme");
  PutTemplate("acme 2", "?tenant=acme");
  EXPECT_EQ(Versions("?tenant=acme")["versions"].size(), 2U);
  EXPECT_EQ(Versions()["versions"].size(), 1U);
  const auto restored =
      client().Post("/v1/templates/task.due/versions/1/restore?tenant=acme", "", {kAuth});
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json()["tenant"], "acme");
  EXPECT_EQ(restored.Json()["locales"]["en"]["title"], "acme 1");
  EXPECT_EQ(LiveTitle(), "global");

  const auto draft =
      client().Put("/v1/templates/task.due/draft?tenant=acme", Body("acme draft").dump(), {kAuth});
  ASSERT_EQ(draft.status, 200) << draft.body;
  EXPECT_EQ(draft.Json()["tenant"], "acme");
  EXPECT_EQ(client().Get("/v1/templates/task.due/draft", {kAuth}).status, 404);
  EXPECT_EQ(
      client().Put("/v1/templates/task.due/draft?tenant=nobody", Body("x").dump(), {kAuth}).status,
      404);
  const auto published = client().Post("/v1/templates/task.due/publish?tenant=acme", "", {kAuth});
  ASSERT_EQ(published.status, 200) << published.body;
  EXPECT_EQ(published.Json()["locales"]["en"]["title"], "acme draft");
  EXPECT_EQ(Versions("?tenant=acme")["versions"][0]["version"], 4);
}

// A draft's PUT, a change of it, its DELETE and the draft a publish takes
// are in the audit log as the live document's PUT is, with their caller;
// a PUT of the draft as it is writes no row.
TEST_F(VersionRoutesTest, DraftChangesAreInTheAuditLog) {
  db_->Scalar("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme') RETURNING 1");
  const auto audited = [this] {
    return db_->Scalar(
        "SELECT coalesce(string_agg(action || ' ' || resource_id || ' ' || actor || "
        "coalesce(' ' || (after -> 'document' ->> 'text'), ''), ', ' ORDER BY id), '') "
        "FROM chopar.audit_log WHERE resource = 'draft'");
  };
  const auto put = [this](const std::string& path, const json& body) {
    const auto response = client().Put(path, body.dump(), {kAuth});
    ASSERT_EQ(response.status, 200) << response.body;
  };
  put("/v1/templates/task.due/draft", Body("one"));
  put("/v1/templates/task.due/draft", Body("two"));
  put("/v1/templates/task.due/draft", Body("two"));
  ASSERT_EQ(client().Delete("/v1/templates/task.due/draft", {kAuth}).status, 204);
  put("/v1/partials/footer/draft?tenant=acme", json({{"text", "drafted"}}));
  ASSERT_EQ(client().Post("/v1/partials/footer/publish?tenant=acme", "", {kAuth}).status, 200);
  put("/v1/layouts/brand/draft", json({{"html", "<b>{{{content}}}</b>"}}));
  EXPECT_EQ(audited(),
            "create template/task.due api_key, update template/task.due api_key, "
            "delete template/task.due api_key, create partial/acme/footer api_key drafted, "
            "delete partial/acme/footer api_key, create layout/brand api_key");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log WHERE resource = 'partial' "
                       "AND resource_id = 'acme/footer' AND action = 'create'"),
            1)
      << "the publish itself, as before";
}

TEST_F(VersionRoutesTest, BadRequestsAreRefusedNamingTheField) {
  PutTemplate("first");
  struct Case {
    std::string method, path, body;
    int status;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"GET", "/v1/templates/Bad/versions", "", 400, "type"},
      {"GET", "/v1/templates/task.due/versions?limit=0", "", 400, "limit"},
      {"GET", "/v1/templates/task.due/versions?limit=101", "", 400, "limit"},
      {"GET", "/v1/templates/task.due/versions?cursor=abc", "", 400, "cursor"},
      {"GET", "/v1/templates/task.due/versions?tenant=bad%20key", "", 400, "tenant"},
      {"GET", "/v1/templates/task.due/versions/0", "", 400, "n"},
      {"GET", "/v1/templates/task.due/versions/x", "", 404, ""},
      {"GET", "/v1/templates/task.due/versions/2147483648", "", 400, "n"},
      {"GET", "/v1/templates/task.due/versions/2", "", 404, ""},
      {"GET", "/v1/templates/other.type/versions/1", "", 404, ""},
      {"POST", "/v1/templates/task.due/versions/2/restore", "", 404, ""},
      {"POST", "/v1/templates/task.due/versions/0/restore", "", 400, "n"},
      {"PUT", "/v1/templates/task.due/draft", "[]", 400, ""},
      {"PUT", "/v1/templates/task.due/draft", "{\"default_locale\": \"en\"}", 400, "locales"},
      {"PUT", "/v1/templates/task.due/draft", Body("{{#open}}").dump(), 400, "locales.en.title"},
      {"PUT", "/v1/templates/task.due/draft", json({{"nope", 1}}).dump(), 400, "nope"},
      {"POST", "/v1/templates/preview", json({{"type", "task.due"}, {"draft", "yes"}}).dump(), 400,
       "draft"},
      {"DELETE", "/v1/templates/task.due/draft", "", 404, ""},
      {"POST", "/v1/templates/task.due/publish", "", 404, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.method + " " + c.path + " " + c.body);
    const auto response = client().Request(c.method, c.path, c.body, {kAuth});
    EXPECT_EQ(response.status, c.status) << response.body;
    if (!c.field.empty()) {
      EXPECT_EQ(response.Json()["error"]["field"], c.field) << response.body;
    }
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_versions"), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.template_drafts"), 0);
  // Without credentials: 401.
  EXPECT_EQ(client().Get("/v1/templates/task.due/versions").status, 401);
}

TEST_F(VersionRoutesTest, ALayoutsRestoreShowsInTheNextEmailAndItsDraftDoesNot) {
  const auto put_layout = [this](const std::string& html) {
    const auto response = client().Put("/v1/layouts/brand", json({{"html", html}}).dump(), {kAuth});
    ASSERT_EQ(response.status, 200) << response.body;
  };
  put_layout("<div class=old>{{{content}}}</div>");
  json body = Body("Due");
  body["layout"] = "brand";
  body["locales"]["en"]["email"] = {{"subject", "Due"}, {"html", "<p>Due</p>"}};
  ASSERT_EQ(client().Put("/v1/templates/task.due", body.dump(), {kAuth}).status, 200);
  put_layout("<div class=new>{{{content}}}</div>");
  // The email as the worker would send it: the layout this process's cache has.
  const auto email_html = [this] {
    const auto response =
        client().Post("/v1/templates/preview", json({{"type", "task.due"}}).dump(), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json()["email_layout"]["html"].get<std::string>();
  };
  EXPECT_NE(email_html().find("class=new"), std::string::npos);

  const json listed = client().Get("/v1/layouts/brand/versions", {kAuth}).Json();
  ASSERT_EQ(listed["versions"].size(), 2U) << listed;
  EXPECT_EQ(listed["versions"][0]["live"], true);
  EXPECT_EQ(client().Get("/v1/layouts/brand/versions/1", {kAuth}).Json()["document"]["html"],
            "<div class=old>{{{content}}}</div>");
  const auto restored = client().Post("/v1/layouts/brand/versions/1/restore", "", {kAuth});
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json()["key"], "brand");
  EXPECT_EQ(restored.Json()["version"], 3);
  EXPECT_NE(email_html().find("class=old"), std::string::npos) << "the restore is live at once";

  const auto draft =
      client().Put("/v1/layouts/brand/draft",
                   json({{"html", "<div class=draft>{{{content}}}</div>"}}).dump(), {kAuth});
  ASSERT_EQ(draft.status, 200) << draft.body;
  EXPECT_EQ(draft.Json()["key"], "brand");
  EXPECT_NE(email_html().find("class=old"), std::string::npos) << "a draft is never sent";
  EXPECT_EQ(client()
                .Put("/v1/layouts/brand/draft", json({{"html", "no tag"}}).dump(), {kAuth})
                .Json()["error"]["field"],
            "html");
  ASSERT_EQ(client().Post("/v1/layouts/brand/publish", "", {kAuth}).status, 200);
  EXPECT_NE(email_html().find("class=draft"), std::string::npos);
  EXPECT_EQ(client().Get("/v1/layouts/brand/versions", {kAuth}).Json()["versions"][0]["version"],
            4);
  EXPECT_EQ(client().Get("/v1/layouts/Bad/versions", {kAuth}).Json()["error"]["field"], "key");
}

// A partial given inline stands before the stored one in the layout too,
// not only in the template's texts.
TEST_F(VersionRoutesTest, PreviewsInlinePartialsReachThePartialsOfTheLayout) {
  ASSERT_EQ(
      client().Put("/v1/partials/footer", json({{"text", "stored footer"}}).dump(), {kAuth}).status,
      200);
  ASSERT_EQ(
      client()
          .Put("/v1/layouts/brand",
               json({{"html", "<div>{{{content}}}</div><p>{{> footer}}</p>"}}).dump(), {kAuth})
          .status,
      200);
  json body = Body("Due");
  body["layout"] = "brand";
  body["locales"]["en"]["email"] = {{"subject", "Due"}, {"html", "<p>{{> footer}}</p>"}};
  ASSERT_EQ(client().Put("/v1/templates/task.due", body.dump(), {kAuth}).status, 200);
  const auto preview = [this](const json& partials) {
    json request = {{"type", "task.due"}};
    if (!partials.is_null()) request["partials"] = partials;
    const auto response = client().Post("/v1/templates/preview", request.dump(), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json()["email_layout"]["html"].get<std::string>();
  };
  const std::string stored = preview(nullptr);
  EXPECT_NE(stored.find("</div><p>stored footer</p>"), std::string::npos) << stored;
  const std::string tried = preview({{"footer", "tried footer"}});
  EXPECT_EQ(tried.find("stored footer"), std::string::npos) << tried;
  EXPECT_NE(tried.find("</div><p>tried footer</p>"), std::string::npos) << tried;
}

TEST_F(VersionRoutesTest, APartialHasVersionsAndADraft) {
  for (const char* text : {"one", "two"}) {
    ASSERT_EQ(client().Put("/v1/partials/footer", json({{"text", text}}).dump(), {kAuth}).status,
              200);
  }
  EXPECT_EQ(client().Get("/v1/partials/footer/versions/2", {kAuth}).Json()["document"],
            json({{"text", "two"}}));
  const auto restored = client().Post("/v1/partials/footer/versions/1/restore", "", {kAuth});
  ASSERT_EQ(restored.status, 200) << restored.body;
  EXPECT_EQ(restored.Json()["text"], "one");
  EXPECT_EQ(restored.Json()["version"], 3);
  EXPECT_EQ(client().Get("/v1/partials", {kAuth}).Json()["items"][0]["version"], 3);
  ASSERT_EQ(
      client().Put("/v1/partials/footer/draft", json({{"text", "three"}}).dump(), {kAuth}).status,
      200);
  EXPECT_EQ(client().Get("/v1/partials/footer", {kAuth}).Json()["text"], "one");
  EXPECT_EQ(client().Get("/v1/partials/footer/draft", {kAuth}).Json()["document"]["text"], "three");
  EXPECT_EQ(client().Delete("/v1/partials/footer/draft", {kAuth}).status, 204);
  EXPECT_EQ(client().Post("/v1/partials/footer/publish", "", {kAuth}).status, 404);
  const json listed = client().Get("/v1/partials/footer/versions", {kAuth}).Json();
  ASSERT_EQ(listed["versions"].size(), 3U) << listed;
  EXPECT_EQ(listed["versions"][0]["live"], true);
  ASSERT_EQ(client().Delete("/v1/partials/footer", {kAuth}).status, 204);
  EXPECT_EQ(client().Get("/v1/partials/footer/versions", {kAuth}).Json()["versions"][0]["live"],
            false);
}

}  // namespace
}  // namespace chopar::http::testing
