// A key confined to tenant A can neither read nor change tenant B's users,
// templates, notifications or inbox, on every route the access table
// declares tenant-aware (Tenancy::kTenant): one case per such route, and a
// route without its case fails the test. What A may do in its own tenant is
// checked beside it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "access/api_keys.hpp"
#include "access/tenants.hpp"
#include "broadcast/broadcast_service.hpp"
#include "broadcast/topic_service.hpp"
#include "http/access_routes.hpp"
#include "http/broadcast_routes.hpp"
#include "http/fragment_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/route_access.hpp"
#include "http/template_routes.hpp"
#include "http/tenant_inbox_routes.hpp"
#include "http/version_routes.hpp"
#include "templates/template_store.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;
using testing::kAuth;

// User 1 and its notification are in tenant "a"; user 2 and its
// notification in "b"; user 3 is in both.
class TenantIsolationTest : public testing::HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    keys_ = std::make_unique<access::ApiKeyStore>(*pool_);
    tenants_ = std::make_unique<access::TenantStore>(*pool_);
    templates_ = std::make_unique<templates::TemplateStore>(*pool_, db_->url());
    templates_->Start();
    topics_ = std::make_unique<broadcast::TopicService>(*pool_);
    broadcasts_ = std::make_unique<broadcast::BroadcastService>(*pool_, templates_.get());
    notify_ = std::make_unique<hub::NotifyService>(*pool_, clock_, metrics_, templates_.get());
    StartServer(DefaultSettings());
    tenants_->Put("a", "Tenant A", R"({"sender_name": "A Mail", "primary_color": "#aa0000"})",
                  "{}");
    tenants_->Put("b", "Tenant B", R"({"sender_name": "B Mail"})", "{}");
    key_a_ = "Authorization: Bearer " + keys_
                                            ->Create({.name = "a",
                                                      .scopes = {"notify", "manage"},
                                                      .tenant = "a",
                                                      .expires_at = std::nullopt})
                                            .secret;
    PutUser(1, {{"email", "one@example.uz"}, {"tenants", {"a"}}});
    PutUser(2, {{"email", "two@example.uz"}, {"tenants", {"b"}}});
    PutUser(3, {{"email", "three@example.uz"}, {"tenants", {"a", "b"}}});
    notification_a_ = NotifyIn(1, "a");
    notification_b_ = NotifyIn(2, "b");
    notification_3b_ = NotifyIn(3, "b");
    const json tmpl = {{"default_locale", "en"}, {"locales", {{"en", {{"title", "B's own"}}}}}};
    ASSERT_EQ(client().Put("/v1/templates/task.due?tenant=b", tmpl.dump(), {kAuth}).status, 200);
    const auto topic = client().Put("/v1/topics/b-news",
                                    json{{"name", "B news"}, {"tenant", "b"}}.dump(), {kAuth});
    ASSERT_EQ(topic.status, 200) << topic.body;
    ASSERT_EQ(client()
                  .Put("/v1/topics/b-news/subscribers", json{{"user_ids", {2}}}.dump(), {kAuth})
                  .status,
              200);
  }

  void TearDown() override {
    HttpServerPgTest::TearDown();
    if (templates_) templates_->Stop();
  }

  void AddRoutes(Router& router) override {
    if (!keys_) return;  // the fixture's first server, before SetUp made the stores
    RegisterAccessRoutes(router, *pool_, *keys_, *tenants_);
    RegisterTemplateRoutes(router, *templates_, *users_);
    RegisterTemplateVersionRoutes(router, *templates_);
    RegisterFragmentRoutes(router, *templates_);
    RegisterFragmentVersionRoutes(router, *templates_);
    RegisterTenantInboxRoutes(router, *tenants_, *users_);
    RegisterBroadcastRoutes(router, *topics_, *broadcasts_);
    server_->AcceptCredentials({.api_keys = ApiKeyResolver(*keys_), .sessions = {}});
  }

  std::int64_t NotifyIn(std::int64_t user, const std::string& tenant) {
    const auto response = Notify(user, {{"tenant", tenant}});
    EXPECT_EQ(response.status, 201) << response.body;
    return json::parse(response.body)["id"];
  }

  // The state a confined key must not change: B's user, its notification
  // and its template, as the bootstrap key reads them.
  std::string StateOfB() {
    return client().Get("/v1/users/2", {kAuth}).body +
           client().Get("/v1/notifications/" + std::to_string(notification_b_), {kAuth}).body +
           client().Get("/v1/templates/task.due?tenant=b", {kAuth}).body +
           std::to_string(db_->Count("SELECT count(*) FROM chopar.notifications")) +
           std::to_string(db_->Count("SELECT count(*) FROM chopar.user_tenants")) +
           client().Get("/v1/topics/b-news/subscribers", {kAuth}).body +
           db_->Scalar("SELECT name || coalesce(tenant, '-') FROM chopar.topics") +
           std::to_string(db_->Count("SELECT count(*) FROM chopar.broadcasts")) +
           std::to_string(db_->Count("SELECT count(*) FROM chopar.template_versions")) +
           std::to_string(db_->Count("SELECT count(*) FROM chopar.template_drafts"));
  }

  std::unique_ptr<access::ApiKeyStore> keys_;
  std::unique_ptr<access::TenantStore> tenants_;
  std::unique_ptr<templates::TemplateStore> templates_;
  std::unique_ptr<broadcast::TopicService> topics_;
  std::unique_ptr<broadcast::BroadcastService> broadcasts_;
  std::string key_a_;
  std::int64_t notification_a_ = 0, notification_b_ = 0, notification_3b_ = 0;
};

struct Attempt {
  std::string method;
  std::string pattern;  // the route's entry in the access table
  std::string target;   // what A's key calls, aimed at B's data
  json body;            // for PUT and POST
  int status;           // what it answers
};

TEST_F(TenantIsolationTest, AConfinedKeyReachesNothingOfAnotherTenantOnAnyTenantRoute) {
  const json tmpl = {{"default_locale", "en"}, {"locales", {{"en", {{"title", "Hijacked"}}}}}};
  const json layout = {{"html", "<p>Hijacked</p>{{{content}}}"}};
  const json partial = {{"text", "Hijacked"}};
  const std::string nb = std::to_string(notification_b_);
  const std::vector<Attempt> attempts = {
      // B's user by id: not revealed (404 user_not_found, as if it did not exist).
      {"PUT", "/v1/users/{id}", "/v1/users/2", {{"email", "x@example.uz"}}, 404},
      {"GET", "/v1/users/{id}", "/v1/users/2", nullptr, 404},
      // Erasing B's user: not found, and the bulk form names it not found.
      {"DELETE", "/v1/users/{id}", "/v1/users/2", nullptr, 404},
      {"POST", "/v1/users/erase", "/v1/users/erase", {{"ids", {2}}}, 202},
      {"GET", "/v1/users/{id}/erasure", "/v1/users/2/erasure", nullptr, 404},
      {"GET", "/v1/users/{id}/notifications", "/v1/users/2/notifications", nullptr, 404},
      {"GET", "/v1/users/{id}/notifications/unread-count", "/v1/users/2/notifications/unread-count",
       nullptr, 404},
      // Notifications: B's by id is not found; one for B's user, or named in B, is refused.
      {"GET", "/v1/notifications/{id}", "/v1/notifications/" + nb, nullptr, 404},
      {"POST",
       "/v1/notifications",
       "/v1/notifications",
       {{"user_id", 2}, {"type", "task.due"}, {"title", "x"}},
       400},
      {"POST",
       "/v1/notifications/batch",
       "/v1/notifications/batch",
       {{"notifications",
         {{{"user_id", 3}, {"type", "task.due"}, {"title", "x"}, {"tenant", "b"}}}}},
       403},
      // Templates: B's are not A's to see or change.
      {"GET", "/v1/templates", "/v1/templates?tenant=b", nullptr, 403},
      {"GET", "/v1/templates/{type}", "/v1/templates/task.due?tenant=b", nullptr, 403},
      {"PUT", "/v1/templates/{type}", "/v1/templates/task.due?tenant=b", tmpl, 403},
      {"DELETE", "/v1/templates/{type}", "/v1/templates/task.due?tenant=b", nullptr, 403},
      // Nor their versions and drafts.
      {"GET", "/v1/templates/{type}/versions", "/v1/templates/task.due/versions?tenant=b", nullptr,
       403},
      {"GET", "/v1/templates/{type}/versions/{n}", "/v1/templates/task.due/versions/1?tenant=b",
       nullptr, 403},
      {"POST", "/v1/templates/{type}/versions/{n}/restore",
       "/v1/templates/task.due/versions/1/restore?tenant=b", json::object(), 403},
      {"PUT", "/v1/templates/{type}/draft", "/v1/templates/task.due/draft?tenant=b", tmpl, 403},
      {"GET", "/v1/templates/{type}/draft", "/v1/templates/task.due/draft?tenant=b", nullptr, 403},
      {"DELETE", "/v1/templates/{type}/draft", "/v1/templates/task.due/draft?tenant=b", nullptr,
       403},
      {"POST", "/v1/templates/{type}/publish", "/v1/templates/task.due/publish?tenant=b",
       json::object(), 403},
      // Nor their layouts and partials, their versions and drafts.
      {"GET", "/v1/layouts", "/v1/layouts?tenant=b", nullptr, 403},
      {"GET", "/v1/layouts/{key}", "/v1/layouts/footer?tenant=b", nullptr, 403},
      {"PUT", "/v1/layouts/{key}", "/v1/layouts/footer?tenant=b", layout, 403},
      {"DELETE", "/v1/layouts/{key}", "/v1/layouts/footer?tenant=b", nullptr, 403},
      {"GET", "/v1/partials", "/v1/partials?tenant=b", nullptr, 403},
      {"GET", "/v1/partials/{key}", "/v1/partials/footer?tenant=b", nullptr, 403},
      {"PUT", "/v1/partials/{key}", "/v1/partials/footer?tenant=b", partial, 403},
      {"DELETE", "/v1/partials/{key}", "/v1/partials/footer?tenant=b", nullptr, 403},
      {"GET", "/v1/layouts/{key}/versions", "/v1/layouts/footer/versions?tenant=b", nullptr, 403},
      {"GET", "/v1/layouts/{key}/versions/{n}", "/v1/layouts/footer/versions/1?tenant=b", nullptr,
       403},
      {"POST", "/v1/layouts/{key}/versions/{n}/restore",
       "/v1/layouts/footer/versions/1/restore?tenant=b", json::object(), 403},
      {"PUT", "/v1/layouts/{key}/draft", "/v1/layouts/footer/draft?tenant=b", layout, 403},
      {"GET", "/v1/layouts/{key}/draft", "/v1/layouts/footer/draft?tenant=b", nullptr, 403},
      {"DELETE", "/v1/layouts/{key}/draft", "/v1/layouts/footer/draft?tenant=b", nullptr, 403},
      {"POST", "/v1/layouts/{key}/publish", "/v1/layouts/footer/publish?tenant=b", json::object(),
       403},
      {"GET", "/v1/partials/{key}/versions", "/v1/partials/footer/versions?tenant=b", nullptr, 403},
      {"GET", "/v1/partials/{key}/versions/{n}", "/v1/partials/footer/versions/1?tenant=b", nullptr,
       403},
      {"POST", "/v1/partials/{key}/versions/{n}/restore",
       "/v1/partials/footer/versions/1/restore?tenant=b", json::object(), 403},
      {"PUT", "/v1/partials/{key}/draft", "/v1/partials/footer/draft?tenant=b", partial, 403},
      {"GET", "/v1/partials/{key}/draft", "/v1/partials/footer/draft?tenant=b", nullptr, 403},
      {"DELETE", "/v1/partials/{key}/draft", "/v1/partials/footer/draft?tenant=b", nullptr, 403},
      {"POST", "/v1/partials/{key}/publish", "/v1/partials/footer/publish?tenant=b", json::object(),
       403},
      // Topics: B's is not found; a broadcast to it, or to everyone, is refused.
      {"PUT", "/v1/topics/{key}", "/v1/topics/b-news", {{"name", "Mine now"}}, 404},
      {"DELETE", "/v1/topics/{key}", "/v1/topics/b-news", nullptr, 404},
      {"GET", "/v1/topics/{key}/subscribers", "/v1/topics/b-news/subscribers", nullptr, 404},
      {"PUT",
       "/v1/topics/{key}/subscribers",
       "/v1/topics/b-news/subscribers",
       {{"user_ids", {1}}},
       404},
      {"DELETE",
       "/v1/topics/{key}/subscribers",
       "/v1/topics/b-news/subscribers",
       {{"user_ids", {2}}},
       404},
      {"POST",
       "/v1/broadcasts",
       "/v1/broadcasts",
       {{"topic", "b-news"}, {"notification", {{"type", "news.post"}, {"title", "x"}}}},
       404},
  };

  std::set<std::string> covered;
  const std::string before = StateOfB();
  for (const Attempt& attempt : attempts) {
    SCOPED_TRACE(attempt.method + " " + attempt.target);
    covered.insert(attempt.method + " " + attempt.pattern);
    ASSERT_TRUE(DeclaredAccess(attempt.method, attempt.pattern)) << "not in the access table";
    EXPECT_EQ(DeclaredAccess(attempt.method, attempt.pattern)->tenancy, Tenancy::kTenant);
    testing::HttpResult response;
    if (attempt.method == "GET") {
      response = client().Get(attempt.target, {key_a_});
    } else if (attempt.method == "DELETE") {
      response = client().Request("DELETE", attempt.target,
                                  attempt.body.is_null() ? "" : attempt.body.dump(), {key_a_});
    } else if (attempt.method == "PUT") {
      response = client().Put(attempt.target, attempt.body.dump(), {key_a_});
    } else {
      response = client().Post(attempt.target, attempt.body.dump(), {key_a_});
    }
    if (attempt.method == "POST" && attempt.pattern == "/v1/notifications/batch") {
      ASSERT_EQ(response.status, 200) << response.body;  // each item answers on its own
      EXPECT_EQ(json::parse(response.body)["results"][0]["error"]["code"], "forbidden")
          << response.body;
    } else {
      EXPECT_EQ(response.status, attempt.status) << response.body;
    }
    EXPECT_EQ(response.body.find("two@example.uz"), std::string::npos) << response.body;
    EXPECT_EQ(response.body.find("B's own"), std::string::npos) << response.body;
  }
  EXPECT_EQ(StateOfB(), before) << "a confined key changed another tenant's data";

  // Every tenant-aware route of the table has its case here.
  for (const DeclaredRoute& route : DeclaredRoutes()) {
    if (route.access.tenancy != Tenancy::kTenant) continue;
    EXPECT_TRUE(covered.contains(std::string(route.method) + " " + std::string(route.pattern)))
        << route.method << " " << route.pattern << " is tenant-aware and has no case here";
  }
}

TEST_F(TenantIsolationTest, AConfinedKeyWorksInItsOwnTenantAndSeesOnlyIt) {
  // A user in both tenants: A's key sees its membership of A only, and its
  // notifications in A only.
  const auto user = client().Get("/v1/users/3", {key_a_});
  ASSERT_EQ(user.status, 200) << user.body;
  EXPECT_EQ(json::parse(user.body)["tenants"], json({"a"}));
  const auto in_a = NotifyIn(3, "a");
  const auto listed = client().Get("/v1/users/3/notifications", {key_a_});
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json items = json::parse(listed.body)["items"];
  ASSERT_EQ(items.size(), 1u) << listed.body;
  EXPECT_EQ(items[0]["id"], in_a);
  EXPECT_EQ(items[0]["tenant"], "a");
  EXPECT_EQ(client().Get("/v1/notifications/" + std::to_string(notification_3b_), {key_a_}).status,
            404);
  const auto count = client().Get("/v1/users/3/notifications/unread-count", {key_a_});
  EXPECT_EQ(json::parse(count.body)["count"], 1) << count.body;

  // Its notifications are its tenant's without saying so.
  const auto created =
      client().Post("/v1/notifications",
                    json{{"user_id", 1}, {"type", "task.due"}, {"title", "Hi"}}.dump(), {key_a_});
  ASSERT_EQ(created.status, 201) << created.body;
  const auto shown =
      client().Get("/v1/notifications/" + json::parse(created.body)["id"].dump(), {key_a_});
  EXPECT_EQ(json::parse(shown.body)["tenant"], "a") << shown.body;

  // A new user made by A's key is A's member.
  ASSERT_EQ(client().Put("/v1/users/9", json{{"locale", "uz"}}.dump(), {key_a_}).status, 200);
  EXPECT_EQ(json::parse(client().Get("/v1/users/9", {kAuth}).body)["tenants"], json({"a"}));
  EXPECT_EQ(
      db_->Scalar("SELECT action || ' ' || resource_id || ' ' || actor FROM chopar.audit_log "
                  "WHERE resource = 'user_tenant' AND resource_id = '9/a'"),
      "create 9/a " + db_->Scalar("SELECT 'key:' || id FROM chopar.api_keys WHERE tenant = 'a'"))
      << "the membership is audited, by the key that made it";

  // Its templates are its tenant's; the global ones are not its to change.
  const json tmpl = {{"default_locale", "en"}, {"locales", {{"en", {{"title", "A's own"}}}}}};
  const auto put = client().Put("/v1/templates/task.due", tmpl.dump(), {key_a_});
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(json::parse(put.body)["tenant"], "a");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log WHERE resource = 'tenant_template' "
                       "AND resource_id = 'a/task.due' AND action = 'create'"),
            1);
  const auto list = json::parse(client().Get("/v1/templates", {key_a_}).body)["items"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["tenant"], "a");
  EXPECT_EQ(client().Get("/v1/templates/task.due", {kAuth}).status, 404) << "no global one made";

  // Its topics are its tenant's; a broadcast to everyone is not its to send.
  const auto topic = client().Put("/v1/topics/a-news", json{{"name", "A news"}}.dump(), {key_a_});
  ASSERT_EQ(topic.status, 200) << topic.body;
  EXPECT_EQ(json::parse(topic.body)["tenant"], "a");
  EXPECT_EQ(client()
                .Put("/v1/topics/a-news/subscribers", json{{"user_ids", {1, 3}}}.dump(), {key_a_})
                .status,
            200);
  EXPECT_EQ(client()
                .Put("/v1/topics/a-news/subscribers", json{{"user_ids", {2}}}.dump(), {key_a_})
                .status,
            404)
      << "B's user is not A's to subscribe";
  const json news = {{"type", "news.post"}, {"title", "News"}};
  EXPECT_EQ(client()
                .Post("/v1/broadcasts", json{{"topic", "a-news"}, {"notification", news}}.dump(),
                      {key_a_})
                .status,
            202);
  EXPECT_EQ(client()
                .Post("/v1/broadcasts", json{{"audience", "all"}, {"notification", news}}.dump(),
                      {key_a_})
                .status,
            403);

  // A route that is not tenant-aware is refused to it.
  EXPECT_EQ(client().Get("/v1/users/1/token", {key_a_}).status, 403);
}

TEST_F(TenantIsolationTest, TheBellFiltersByTenantAndShowsOnlyItsUsersTenants) {
  NotifyIn(3, "a");
  // Without a title: the tenant's own template says it.
  const auto untitled =
      client().Post("/v1/notifications",
                    json{{"user_id", 3}, {"type", "task.due"}, {"tenant", "b"}}.dump(), {kAuth});
  ASSERT_EQ(untitled.status, 201) << untitled.body;
  const std::string bearer = "Authorization: Bearer " + Token(3);
  const auto all = json::parse(client().Get("/v1/inbox/notifications", {bearer}).body)["items"];
  EXPECT_EQ(all.size(), 3u);
  const auto only_b =
      json::parse(client().Get("/v1/inbox/notifications?tenant=b", {bearer}).body)["items"];
  ASSERT_EQ(only_b.size(), 2u);
  EXPECT_EQ(only_b[0]["tenant"], "b");
  EXPECT_EQ(only_b[0]["title"], "B's own") << "the tenant's template rendered it";
  EXPECT_EQ(only_b[1]["id"], notification_3b_);
  EXPECT_EQ(json::parse(client().Get("/v1/inbox/unread-count?tenant=a", {bearer}).body)["count"],
            1);

  const auto tenant = client().Get("/v1/inbox/tenants/b", {bearer});
  ASSERT_EQ(tenant.status, 200) << tenant.body;
  EXPECT_EQ(json::parse(tenant.body),
            json({{"key", "b"}, {"name", "Tenant B"}, {"branding", {{"sender_name", "B Mail"}}}}));
  const std::string bearer_1 = "Authorization: Bearer " + Token(1);
  EXPECT_EQ(client().Get("/v1/inbox/tenants/b", {bearer_1}).status, 404) << "not user 1's tenant";
  EXPECT_EQ(client().Get("/v1/inbox/tenants/nope", {bearer_1}).status, 404);
  EXPECT_TRUE(
      json::parse(client().Get("/v1/inbox/notifications?tenant=b", {bearer_1}).body)["items"]
          .empty());
}

}  // namespace
}  // namespace chopar::http
