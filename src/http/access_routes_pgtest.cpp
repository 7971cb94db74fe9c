// API keys, tenants and the audit log over HTTP against a real PostgreSQL
// (docs/tenants-and-access.md): keys are shown once and stored hashed, a
// key's scopes bound what it may call, deleting or expiring it ends it, and
// every change a caller makes is in the audit log once, in the transaction
// of the change, with secrets elided.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "access/api_keys.hpp"
#include "access/tenants.hpp"
#include "console/accounts.hpp"
#include "core/encoding.hpp"
#include "db/actor.hpp"
#include "http/access_routes.hpp"
#include "http/http_server_fixture.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;
using testing::kAuth;

class AccessRoutesTest : public testing::HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    keys_ = std::make_unique<access::ApiKeyStore>(*pool_);
    tenants_ = std::make_unique<access::TenantStore>(*pool_);
    StartServer(DefaultSettings());
  }

  void AddRoutes(Router& router) override {
    if (!keys_) return;  // the fixture's first server, before SetUp made the stores
    RegisterAccessRoutes(router, *pool_, *keys_, *tenants_);
    server_->AcceptCredentials({.api_keys = ApiKeyResolver(*keys_), .sessions = {}});
  }

  // POST /v1/api-keys with the bootstrap key; the created key's JSON.
  json CreateKey(const json& body) {
    const auto response = client().Post("/v1/api-keys", body.dump(), {kAuth});
    EXPECT_EQ(response.status, 201) << response.body;
    return json::parse(response.body);
  }

  static std::string Bearer(const json& key) {
    return "Authorization: Bearer " + key["key"].get<std::string>();
  }

  json Audit(const std::string& query = "") {
    const auto response = client().Get("/v1/audit" + query, {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body)["items"];
  }

  std::int64_t Count(const std::string& sql) {
    return pool_->Acquire()->ExecText(sql, {}).Int(0, 0);
  }

  std::unique_ptr<access::ApiKeyStore> keys_;
  std::unique_ptr<access::TenantStore> tenants_;
};

TEST_F(AccessRoutesTest, AKeyIsShownOnceAndStoredAsItsDigestOnly) {
  const json key = CreateKey({{"name", "billing service"}, {"scopes", {"notify", "read"}}});
  const std::string secret = key["key"];
  ASSERT_TRUE(secret.starts_with("chopar_"));
  EXPECT_EQ(secret.size(), 7u + 43u);
  EXPECT_EQ(key["prefix"], secret.substr(0, 11));
  EXPECT_EQ(key["scopes"], json({"notify", "read"}));
  EXPECT_TRUE(key["last_used_at"].is_null());

  const auto listed = client().Get("/v1/api-keys", {kAuth});
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body.find(secret), std::string::npos) << "the list shows the key itself";
  const json item = json::parse(listed.body)["items"][0];
  EXPECT_FALSE(item.contains("key"));
  EXPECT_EQ(item["name"], "billing service");

  const std::string digest = core::HexEncode(core::Sha256(secret));
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.api_keys WHERE key_hash = decode('" + digest +
                  "', 'hex')"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.api_keys WHERE position('" + secret.substr(7) +
                  "' IN encode(key_hash, 'escape')) > 0"),
            0);
}

TEST_F(AccessRoutesTest, AKeyCallsWhatItsScopesAllowAndIsMarkedUsed) {
  const json reader = CreateKey({{"name", "reader"}, {"scopes", {"read"}}});
  PutUser(5, {{"email", "a@example.com"}});
  EXPECT_EQ(client().Get("/v1/users/5", {Bearer(reader)}).status, 200);
  const auto refused =
      client().Put("/v1/users/5", R"({"email":"b@example.com"})", {Bearer(reader)});
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["error"]["code"], "forbidden");
  EXPECT_NE(refused.body.find("manage"), std::string::npos);
  EXPECT_EQ(client().Get("/v1/api-keys", {Bearer(reader)}).status, 403);
  const json listed = json::parse(client().Get("/v1/api-keys", {kAuth}).body)["items"][0];
  EXPECT_FALSE(listed["last_used_at"].is_null());
}

TEST_F(AccessRoutesTest, ADeletedKeyIsRefusedAtOnce) {
  const json key = CreateKey({{"name", "to delete"}, {"scopes", {"read"}}});
  PutUser(5, {{"email", "a@example.com"}});
  ASSERT_EQ(client().Get("/v1/users/5", {Bearer(key)}).status, 200);  // now cached
  EXPECT_EQ(client().Delete("/v1/api-keys/" + std::to_string(key["id"].get<int>()), {kAuth}).status,
            204);
  EXPECT_EQ(client().Get("/v1/users/5", {Bearer(key)}).status, 401);
  EXPECT_EQ(client().Delete("/v1/api-keys/" + std::to_string(key["id"].get<int>()), {kAuth}).status,
            404);
}

TEST_F(AccessRoutesTest, AnExpiredKeyIsRefused) {
  // Made in the past, expired an hour ago (POST refuses a past expiry).
  const std::string secret = "chopar_" + core::Base64UrlEncode(core::RandomBytes(32));
  pool_->Acquire()->ExecText(
      "INSERT INTO chopar.api_keys (name, prefix, key_hash, scopes, created_at, expires_at) "
      "VALUES ('old', $1, decode($2, 'hex'), '{read}', now() - interval '2 hours', "
      "now() - interval '1 hour')",
      db::Params(secret.substr(0, 11), core::HexEncode(core::Sha256(secret))));
  PutUser(5, {{"email", "a@example.com"}});
  EXPECT_EQ(client().Get("/v1/users/5", {"Authorization: Bearer " + secret}).status, 401);
}

TEST_F(AccessRoutesTest, BadKeyRequestsAreRefusedAndCreateNothing) {
  const std::vector<std::pair<json, std::string>> cases = {
      {json{{"scopes", {"read"}}}, "name"},
      {json{{"name", ""}, {"scopes", {"read"}}}, "name"},
      {json{{"name", "x"}}, "scopes"},
      {json{{"name", "x"}, {"scopes", json::array()}}, "scopes"},
      {json{{"name", "x"}, {"scopes", {"everything"}}}, "scopes[0]"},
      {json{{"name", "x"}, {"scopes", {"operate"}}}, "scopes[0]"},
      {json{{"name", "x"}, {"scopes", {"read", "read"}}}, "scopes[1]"},
      {json{{"name", "x"}, {"scopes", {"read"}}, {"expires_at", "2001-01-01T00:00:00Z"}},
       "expires_at"},
      {json{{"name", "x"}, {"scopes", {"read"}}, {"expires_at", "tomorrow"}}, "expires_at"},
      {json{{"name", "x"}, {"scopes", {"admin"}}, {"tenant", "acme"}}, "scopes"},
      {json{{"name", "x"}, {"scopes", {"read"}}, {"tenant", "bad key!"}}, "tenant"},
      {json{{"name", "x"}, {"scopes", {"read"}}, {"colour", "red"}}, "colour"},
  };
  for (const auto& [body, field] : cases) {
    const auto response = client().Post("/v1/api-keys", body.dump(), {kAuth});
    EXPECT_EQ(response.status, 400) << body.dump() << " " << response.body;
    EXPECT_EQ(json::parse(response.body)["error"]["field"], field) << body.dump();
  }
  const auto unknown_tenant = client().Post(
      "/v1/api-keys", json{{"name", "x"}, {"scopes", {"read"}}, {"tenant", "nobody"}}.dump(),
      {kAuth});
  EXPECT_EQ(unknown_tenant.status, 404) << unknown_tenant.body;
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.api_keys"), 0);
}

TEST_F(AccessRoutesTest, TenantsArePutReadListedAndDeletedWithTheirKeys) {
  const json body = {{"name", "Acme Ltd"},
                     {"branding",
                      {{"logo_url", "https://acme.example/logo.png"},
                       {"primary_color", "#0a7cff"},
                       {"sender_name", "Acme"},
                       {"footer", "Acme Ltd, 1 Road"}}},
                     {"preferences", {{"sms", false}}}};
  const auto created = client().Put("/v1/tenants/acme", body.dump(), {kAuth});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json::parse(created.body)["branding"]["sender_name"], "Acme");
  EXPECT_EQ(client().Put("/v1/tenants/acme", body.dump(), {kAuth}).status, 200);
  const auto got = client().Get("/v1/tenants/acme", {kAuth});
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(json::parse(got.body)["preferences"], json({{"sms", false}}));
  EXPECT_EQ(json::parse(client().Get("/v1/tenants", {kAuth}).body)["items"].size(), 1u);

  const json key = CreateKey({{"name", "acme's"}, {"scopes", {"read"}}, {"tenant", "acme"}});
  EXPECT_EQ(key["tenant"], "acme");
  EXPECT_EQ(client().Delete("/v1/tenants/acme", {kAuth}).status, 204);
  EXPECT_EQ(client().Get("/v1/tenants/acme", {kAuth}).status, 404);
  EXPECT_EQ(client().Delete("/v1/tenants/acme", {kAuth}).status, 404);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.api_keys"), 0) << "a tenant's keys go with it";
}

TEST_F(AccessRoutesTest, BadTenantsAreRefusedAndChangeNothing) {
  const std::vector<std::pair<json, std::string>> cases = {
      {json::object(), "name"},
      {json{{"name", "A"}, {"branding", {{"primary_color", "blue"}}}}, "branding.primary_color"},
      {json{{"name", "A"}, {"branding", {{"logo_url", "javascript:alert(1)"}}}},
       "branding.logo_url"},
      {json{{"name", "A"}, {"branding", {{"font", "Comic"}}}}, "branding.font"},
      {json{{"name", "A"}, {"preferences", {{"fax", true}}}}, "fax"},
  };
  for (const auto& [body, field] : cases) {
    const auto response = client().Put("/v1/tenants/acme", body.dump(), {kAuth});
    EXPECT_EQ(response.status, 400) << body.dump() << " " << response.body;
    EXPECT_EQ(json::parse(response.body)["error"]["field"], field) << response.body;
  }
  EXPECT_EQ(client().Put("/v1/tenants/-bad", R"({"name":"A"})", {kAuth}).status, 400);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.tenants"), 0);
}

TEST_F(AccessRoutesTest, EachChangeIsInTheAuditLogOnceWithItsCaller) {
  const json manager = CreateKey({{"name", "crm sync"}, {"scopes", {"manage"}}});
  const std::string user = R"({"email":"a@example.com","locale":"uz"})";
  ASSERT_EQ(
      client().Put("/v1/users/5", user, {Bearer(manager), "X-Request-Id: req-audit-1"}).status,
      200);
  json rows = Audit("?resource=user");
  ASSERT_EQ(rows.size(), 1u) << rows.dump();
  EXPECT_EQ(rows[0]["actor"], "key:" + std::to_string(manager["id"].get<int>()));
  EXPECT_EQ(rows[0]["actor_name"], "crm sync");
  EXPECT_EQ(rows[0]["address"], "127.0.0.1");
  EXPECT_EQ(rows[0]["request_id"], "req-audit-1");
  EXPECT_EQ(rows[0]["action"], "create");
  EXPECT_EQ(rows[0]["resource_id"], "5");
  EXPECT_TRUE(rows[0]["before"].is_null());
  EXPECT_EQ(rows[0]["after"]["email"], "a@example.com");

  // The same again changes nothing, and records nothing.
  ASSERT_EQ(client().Put("/v1/users/5", user, {Bearer(manager)}).status, 200);
  EXPECT_EQ(Audit("?resource=user").size(), 1u);

  ASSERT_EQ(client().Put("/v1/users/5", R"({"email":"b@example.com"})", {Bearer(manager)}).status,
            200);
  rows = Audit("?resource=user&resource_id=5");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["action"], "update");
  EXPECT_EQ(rows[0]["before"]["email"], "a@example.com");
  EXPECT_EQ(rows[0]["after"]["email"], "b@example.com");
  EXPECT_EQ(Audit("?actor=api_key&resource=user").size(), 0u);
}

TEST_F(AccessRoutesTest, SecretsAreElidedInTheAuditLog) {
  const json key = CreateKey({{"name", "k"}, {"scopes", {"read"}}});
  const json rows = Audit("?resource=api_key");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["actor"], "api_key");
  EXPECT_EQ(rows[0]["after"]["key_hash"], "[secret]");
  EXPECT_EQ(rows.dump().find(key["key"].get<std::string>()), std::string::npos);

  PutUser(5, {{"email", "a@example.com"}});
  const json subscription = {
      {"endpoint", "https://push.example/sub/1"},
      {"keys", {{"p256dh", testing::kP256dh}, {"auth", testing::kPushAuth}}}};
  ASSERT_EQ(client().Post("/v1/users/5/push-subscriptions", subscription.dump(), {kAuth}).status,
            201);
  const json pushed = Audit("?resource=push_subscription");
  ASSERT_EQ(pushed.size(), 1u);
  EXPECT_EQ(pushed[0]["after"]["p256dh"], "[secret]");
  EXPECT_EQ(pushed[0]["after"]["auth"], "[secret]");
  EXPECT_EQ(pushed[0]["after"]["endpoint"], "https://push.example/sub/1");
}

// An account made from the command line (actor "cli") is audited with its
// password hash elided; a role change records before and after.
TEST_F(AccessRoutesTest, ConsoleAccountChangesAreAuditedWithoutTheirPasswords) {
  console::AccountService accounts(*pool_, clock_);
  const db::ActorScope actor(R"({"actor":"cli","name":"root"})");
  const auto account = accounts.Add({.email = "ops@example.com",
                                     .role = console::Role::kViewer,
                                     .password = "correct horse battery"});
  accounts.ChangeRole(account.id, console::Role::kOperator);
  const json rows = Audit("?resource=console_account");
  ASSERT_EQ(rows.size(), 2u) << rows.dump();
  EXPECT_EQ(rows[1]["action"], "create");
  EXPECT_EQ(rows[1]["actor"], "cli");
  EXPECT_EQ(rows[1]["after"]["password_hash"], "[secret]");
  EXPECT_EQ(rows[0]["before"]["role"], "viewer");
  EXPECT_EQ(rows[0]["after"]["role"], "operator");
  EXPECT_EQ(rows.dump().find("$argon2id"), std::string::npos);
}

TEST_F(AccessRoutesTest, SendingNotificationsIsNotAudited) {
  PutUser(5, {{"email", "a@example.com"}});
  const auto before = Count("SELECT count(*) FROM chopar.audit_log");
  ASSERT_EQ(Notify(5).status, 201);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.audit_log"), before);
}

TEST_F(AccessRoutesTest, AuditQueriesAreBounded) {
  EXPECT_EQ(client().Get("/v1/audit?limit=0", {kAuth}).status, 400);
  EXPECT_EQ(client().Get("/v1/audit?limit=501", {kAuth}).status, 400);
  EXPECT_EQ(client().Get("/v1/audit?since=yesterday", {kAuth}).status, 400);
  EXPECT_EQ(client().Get("/v1/audit?cursor=%%%", {kAuth}).status, 400);
  EXPECT_EQ(client().Get("/v1/audit?resource=" + std::string(51, 'a'), {kAuth}).status, 400);
}

TEST_F(AccessRoutesTest, TheAuditLogPagesNewestFirst) {
  for (int id = 1; id <= 5; ++id) {
    ASSERT_EQ(client()
                  .Put("/v1/users/" + std::to_string(id), R"({"email":"a@example.com"})", {kAuth})
                  .status,
              200);
  }
  const json first = json::parse(client().Get("/v1/audit?resource=user&limit=3", {kAuth}).body);
  ASSERT_EQ(first["items"].size(), 3u);
  EXPECT_EQ(first["items"][0]["resource_id"], "5");
  const std::string cursor = first["next_cursor"];
  const json second =
      json::parse(client().Get("/v1/audit?resource=user&limit=3&cursor=" + cursor, {kAuth}).body);
  ASSERT_EQ(second["items"].size(), 2u);
  EXPECT_EQ(second["items"][1]["resource_id"], "1");
  EXPECT_TRUE(second["next_cursor"].is_null());
}

// The log is written in the transaction of the change: rolled back, no row;
// committed, one. Without an actor (a background loop), none.
TEST_F(AccessRoutesTest, AnAuditRowCommitsOrRollsBackWithItsChange) {
  {
    const db::ActorScope actor(R"({"actor":"cli","name":"test"})");
    auto tx = pool_->Begin("rolled_back");
    tx.ExecText("INSERT INTO chopar.users (id, email) VALUES (41, 'x@example.com')");
    EXPECT_EQ(tx.ExecText("SELECT count(*) FROM chopar.audit_log").Int(0, 0), 1);
  }  // not committed
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.audit_log"), 0);
  {
    const db::ActorScope actor(R"({"actor":"cli","name":"test"})");
    auto tx = pool_->Begin("committed");
    tx.Exec(db::Query{"test.insert_user",
                      "INSERT INTO chopar.users (id, email) VALUES (42, 'y@example.com')",
                      db::Plan::kAny},
            db::Params());
    tx.Commit();
  }
  EXPECT_EQ(
      Count("SELECT count(*) FROM chopar.audit_log WHERE resource_id = '42' AND actor = 'cli'"), 1);
  pool_->Acquire()->ExecText("INSERT INTO chopar.users (id, email) VALUES (43, 'z@example.com')",
                             {});
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.audit_log WHERE resource_id = '43'"), 0);
}

TEST_F(AccessRoutesTest, AuditRowsBecomeEventsWhenEmitSelectsThem) {
  auto conn = pool_->Acquire();
  conn->ExecText("SET chopar.events = ',audit.recorded,'", {});
  const db::ActorScope actor(R"({"actor":"cli","name":"test"})");
  conn->Exec(db::Query{"test.insert_user",
                       "INSERT INTO chopar.users (id, email) VALUES (44, 'e@example.com')",
                       db::Plan::kAny},
             db::Params());
  const auto events = conn->ExecText(
      "SELECT payload->>'resource', payload->>'resource_id', payload->>'actor' FROM chopar.outbox "
      "WHERE type = 'audit.recorded'",
      {});
  ASSERT_EQ(events.Rows(), 1);
  EXPECT_EQ(events.String(0, 0), "user");
  EXPECT_EQ(events.String(0, 1), "44");
  EXPECT_EQ(events.String(0, 2), "cli");
  conn->ExecText("RESET chopar.events", {});
}

}  // namespace
}  // namespace chopar::http
