// Acceptance: bad input gets the documented 4xx code and changes nothing.
#include <gtest/gtest.h>

#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

// Every table's full content, so an update counts as a write as much as an insert.
std::string DatabaseFingerprint(chopar::testing::TestDatabase& db) {
  std::string sql = "SELECT concat_ws(' '";
  for (const char* table :
       {"users", "telegram_connections", "push_subscriptions", "notifications", "deliveries"}) {
    sql += std::string(
               ", (SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY "
               "t::text)), '') FROM chopar.") +
           table + " t)";
  }
  return db.Scalar(sql + ")");
}

enum class Credential {
  kServerKey,
  kNone,
  kWrongKey,
  kToken,
  kTokenInQuery,
  kBadToken,
  kForeignToken
};

struct BadInput {
  std::string name;
  std::string method;
  std::string path;
  std::string body;
  int status;
  std::string code;
  std::optional<std::string> field = std::nullopt;
  Credential credential = Credential::kServerKey;
};

json Notification(json changes) {
  json body = {
      {"user_id", 1}, {"type", "task.due"}, {"title", "Muddat yaqin"}, {"link", "/tasks/1"}};
  for (auto& [key, value] : changes.items()) {
    if (value.is_discarded()) {
      body.erase(key);
    } else {
      body[key] = value;
    }
  }
  return body;
}

json Without(json body, const std::string& key) {
  body.erase(key);
  return body;
}

json Subscription(json endpoint, json keys) {
  return {{"endpoint", std::move(endpoint)}, {"keys", std::move(keys)}};
}

std::vector<BadInput> Cases() {
  const json good_keys = {{"p256dh", kP256dh}, {"auth", kPushAuth}};
  const std::string big(1 << 20, 'x');
  std::vector<BadInput> cases = {
      // Malformed JSON and wrong shapes.
      {"malformed json", "POST", "/v1/notifications", "{\"user_id\": 1,", 400, "invalid_json"},
      {"empty body", "POST", "/v1/notifications", "", 400, "invalid_json"},
      {"number beyond a double", "POST", "/v1/notifications",
       "{\"user_id\": 1e400, \"type\": \"task.due\", \"title\": \"t\"}", 400, "invalid_json"},
      {"json array body", "POST", "/v1/notifications", "[]", 400, "invalid_json"},
      {"json string body", "POST", "/v1/notifications", "\"hi\"", 400, "invalid_json"},
      {"invalid utf-8", "POST", "/v1/notifications",
       "{\"user_id\": 1, \"type\": \"task.due\", \"title\": \"\xff\xfe\"}", 400, "invalid_json"},
      {"trailing garbage", "POST", "/v1/notifications", Notification({}).dump() + "}", 400,
       "invalid_json"},
      // Wrong types and missing fields.
      {"user_id as string", "POST", "/v1/notifications", Notification({{"user_id", "1"}}).dump(),
       400, "invalid_field", "user_id"},
      {"user_id fractional", "POST", "/v1/notifications", Notification({{"user_id", 1.5}}).dump(),
       400, "invalid_field", "user_id"},
      {"user_id negative", "POST", "/v1/notifications", Notification({{"user_id", -1}}).dump(), 400,
       "invalid_field", "user_id"},
      {"user_id missing", "POST", "/v1/notifications", Without(Notification({}), "user_id").dump(),
       400, "invalid_field", "user_id"},
      {"type missing", "POST", "/v1/notifications", Without(Notification({}), "type").dump(), 400,
       "invalid_field", "type"},
      {"title missing", "POST", "/v1/notifications", Without(Notification({}), "title").dump(), 400,
       "invalid_field", "title"},
      {"title a number", "POST", "/v1/notifications", Notification({{"title", 5}}).dump(), 400,
       "invalid_field", "title"},
      {"title empty", "POST", "/v1/notifications", Notification({{"title", ""}}).dump(), 400,
       "invalid_field", "title"},
      {"data an array", "POST", "/v1/notifications", Notification({{"data", json::array()}}).dump(),
       400, "invalid_field", "data"},
      {"critical a string", "POST", "/v1/notifications", Notification({{"critical", "yes"}}).dump(),
       400, "invalid_field", "critical"},
      {"dedup_key a number", "POST", "/v1/notifications", Notification({{"dedup_key", 5}}).dump(),
       400, "invalid_field", "dedup_key"},
      {"dedup_key empty", "POST", "/v1/notifications", Notification({{"dedup_key", ""}}).dump(),
       400, "invalid_field", "dedup_key"},
      // Unknown user, unknown channel.
      {"unknown user", "POST", "/v1/notifications", Notification({{"user_id", 999}}).dump(), 404,
       "user_not_found", "user_id"},
      {"unknown channel", "POST", "/v1/notifications",
       Notification({{"channels", {"email", "fax"}}}).dump(), 400, "invalid_field", "channels"},
      {"channels a string", "POST", "/v1/notifications",
       Notification({{"channels", "email"}}).dump(), 400, "invalid_field", "channels"},
      {"channel a number", "POST", "/v1/notifications", Notification({{"channels", {1}}}).dump(),
       400, "invalid_field", "channels"},
      // External links.
      {"https link", "POST", "/v1/notifications",
       Notification({{"link", "https://evil.example/x"}}).dump(), 400, "invalid_field", "link"},
      {"http link", "POST", "/v1/notifications",
       Notification({{"link", "http://evil.example"}}).dump(), 400, "invalid_field", "link"},
      {"protocol-relative link", "POST", "/v1/notifications",
       Notification({{"link", "//evil.example/x"}}).dump(), 400, "invalid_field", "link"},
      {"backslash link", "POST", "/v1/notifications",
       Notification({{"link", "/\\evil.example"}}).dump(), 400, "invalid_field", "link"},
      {"javascript link", "POST", "/v1/notifications",
       Notification({{"link", "javascript:alert(1)"}}).dump(), 400, "invalid_field", "link"},
      {"relative link", "POST", "/v1/notifications", Notification({{"link", "tasks/1"}}).dump(),
       400, "invalid_field", "link"},
      {"link with newline", "POST", "/v1/notifications",
       Notification({{"link", "/tasks/1\nLocation: x"}}).dump(), 400, "invalid_field", "link"},
      {"link a number", "POST", "/v1/notifications", Notification({{"link", 7}}).dump(), 400,
       "invalid_field", "link"},
      // NUL (U+0000), which PostgreSQL's text and jsonb cannot store.
      {"title with NUL", "POST", "/v1/notifications",
       Notification({{"title", std::string("a\0b", 3)}}).dump(), 400, "invalid_field", "title"},
      {"body with NUL", "POST", "/v1/notifications",
       Notification({{"body", std::string("a\0b", 3)}}).dump(), 400, "invalid_field", "body"},
      {"dedup_key with NUL", "POST", "/v1/notifications",
       Notification({{"dedup_key", std::string("k\0", 2)}}).dump(), 400, "invalid_field",
       "dedup_key"},
      {"data value with NUL", "POST", "/v1/notifications",
       Notification({{"data", {{"task", {{"title", std::string("x\0", 2)}}}}}}).dump(), 400,
       "invalid_field", "data"},
      {"data key with NUL", "POST", "/v1/notifications",
       Notification({{"data", {{std::string("k\0", 2), 1}}}}).dump(), 400, "invalid_field", "data"},
      {"preferences with NUL", "PUT", "/v1/users/1",
       json{{"preferences", {{"email", std::string("\0", 1)}}}}.dump(), 400, "invalid_field",
       "preferences"},
      {"timezone with NUL", "PUT", "/v1/users/1",
       json{{"timezone", std::string("UTC\0", 4)}}.dump(), 400, "invalid_field", "timezone"},
      {"query value with NUL", "GET", "/v1/deliveries?channel=email%00", "", 400, "invalid_field",
       "channel"},
      {"query cursor with NUL", "GET", "/v1/users/1/notifications?cursor=%00", "", 400,
       "invalid_field", "cursor"},
      // Bad type names.
      {"type upper case", "POST", "/v1/notifications", Notification({{"type", "Task.Due"}}).dump(),
       400, "invalid_field", "type"},
      {"type double dot", "POST", "/v1/notifications", Notification({{"type", "task..due"}}).dump(),
       400, "invalid_field", "type"},
      {"type trailing dot", "POST", "/v1/notifications", Notification({{"type", "task."}}).dump(),
       400, "invalid_field", "type"},
      {"type dash", "POST", "/v1/notifications", Notification({{"type", "task-due"}}).dump(), 400,
       "invalid_field", "type"},
      {"type underscore first", "POST", "/v1/notifications",
       Notification({{"type", "_task"}}).dump(), 400, "invalid_field", "type"},
      {"type cyrillic", "POST", "/v1/notifications", Notification({{"type", "задача"}}).dump(), 400,
       "invalid_field", "type"},
      {"type empty", "POST", "/v1/notifications", Notification({{"type", ""}}).dump(), 400,
       "invalid_field", "type"},
      // Oversize bodies.
      {"oversize notification", "POST", "/v1/notifications", Notification({{"body", big}}).dump(),
       413, "payload_too_large"},
      {"oversize user", "PUT", "/v1/users/1", json{{"locale", big}}.dump(), 413,
       "payload_too_large"},
      {"title too long", "POST", "/v1/notifications",
       Notification({{"title", std::string(501, 'a')}}).dump(), 400, "invalid_field", "title"},
      // Batches.
      {"batch without list", "POST", "/v1/notifications/batch", "{}", 400, "invalid_field",
       "notifications"},
      {"batch list an object", "POST", "/v1/notifications/batch", R"({"notifications": {}})", 400,
       "invalid_field", "notifications"},
      {"batch malformed", "POST", "/v1/notifications/batch", R"({"notifications": [)", 400,
       "invalid_json"},
      // Users: time zone, email, phone and friends, for an existing user.
      {"unknown timezone", "PUT", "/v1/users/1", R"({"timezone": "Mars/Olympus_Mons"})", 400,
       "invalid_field", "timezone"},
      {"timezone a number", "PUT", "/v1/users/1", R"({"timezone": 5})", 400, "invalid_field",
       "timezone"},
      {"malformed email", "PUT", "/v1/users/1", R"({"email": "not-an-email"})", 400,
       "invalid_field", "email"},
      {"email two ats", "PUT", "/v1/users/1", R"({"email": "a@b@c.uz"})", 400, "invalid_field",
       "email"},
      {"email a number", "PUT", "/v1/users/1", R"({"email": 42})", 400, "invalid_field", "email"},
      {"phone too short", "PUT", "/v1/users/1", R"({"phone": "+12"})", 400, "invalid_field",
       "phone"},
      {"phone letters", "PUT", "/v1/users/1", R"({"phone": "+99890abc4567"})", 400, "invalid_field",
       "phone"},
      {"bad locale", "PUT", "/v1/users/1", R"({"locale": "English!"})", 400, "invalid_field",
       "locale"},
      {"preferences an array", "PUT", "/v1/users/1", R"({"preferences": [true]})", 400,
       "invalid_field", "preferences"},
      {"quiet hours out of range", "PUT", "/v1/users/1",
       R"({"quiet_hours": {"start": "25:00", "end": "08:00"}})", 400, "invalid_field",
       "quiet_hours"},
      {"quiet hours equal", "PUT", "/v1/users/1",
       R"({"quiet_hours": {"start": "08:00", "end": "08:00"}})", 400, "invalid_field",
       "quiet_hours"},
      {"admin a string", "PUT", "/v1/users/1", R"({"admin": "yes"})", 400, "invalid_field",
       "admin"},
      {"unknown user field", "PUT", "/v1/users/1", R"({"nickname": "aziz"})", 400, "invalid_field",
       "nickname"},
      {"user body an array", "PUT", "/v1/users/1", "[]", 400, "invalid_json"},
      {"valid and invalid together", "PUT", "/v1/users/1",
       R"({"email": "new@example.uz", "phone": "nope"})", 400, "invalid_field", "phone"},
      {"user id zero", "PUT", "/v1/users/0", R"({"email": "z@example.uz"})", 400, "invalid_field",
       "id"},
      {"user id too large", "PUT", "/v1/users/9223372036854775808", R"({"email": "z@example.uz"})",
       400, "invalid_field", "id"},
      {"user id not a number", "PUT", "/v1/users/aziz", R"({"email": "z@example.uz"})", 404,
       "not_found"},
      // Telegram.
      {"chat_id a string", "PUT", "/v1/users/1/telegram", R"({"chat_id": "abc"})", 400,
       "invalid_field", "chat_id"},
      {"chat_id missing", "PUT", "/v1/users/1/telegram", "{}", 400, "invalid_field", "chat_id"},
      {"chat_id fractional", "PUT", "/v1/users/1/telegram", R"({"chat_id": 1.5})", 400,
       "invalid_field", "chat_id"},
      {"telegram unknown user", "PUT", "/v1/users/999/telegram", R"({"chat_id": 5})", 404,
       "user_not_found"},
      {"telegram delete unknown user", "DELETE", "/v1/users/999/telegram", "", 404,
       "user_not_found"},
      // Push subscriptions.
      {"push http endpoint", "POST", "/v1/users/1/push-subscriptions",
       Subscription("http://push.example/x", good_keys).dump(), 400, "invalid_field", "endpoint"},
      {"push ftp endpoint", "POST", "/v1/users/1/push-subscriptions",
       Subscription("ftp://push.example/x", good_keys).dump(), 400, "invalid_field", "endpoint"},
      {"push endpoint with space", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://push.example/a b", good_keys).dump(), 400, "invalid_field",
       "endpoint"},
      {"push endpoint on loopback", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://127.0.0.1/x", good_keys).dump(), 400, "invalid_field", "endpoint"},
      {"push endpoint on loopback, decimal", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://2130706433/x", good_keys).dump(), 400, "invalid_field", "endpoint"},
      {"push endpoint on the metadata address", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://169.254.169.254/latest/meta-data", good_keys).dump(), 400,
       "invalid_field", "endpoint"},
      {"push endpoint private behind userinfo", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://push.example@10.0.0.1/x", good_keys).dump(), 400, "invalid_field",
       "endpoint"},
      {"push endpoint private ipv6", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://[fd00::1]/x", good_keys).dump(), 400, "invalid_field", "endpoint"},
      {"push endpoint ipv4-mapped", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://[::ffff:192.168.1.1]/x", good_keys).dump(), 400, "invalid_field",
       "endpoint"},
      {"push endpoint localhost", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://localhost:8443/x", good_keys).dump(), 400, "invalid_field",
       "endpoint"},
      {"push endpoint missing", "POST", "/v1/users/1/push-subscriptions",
       json{{"keys", good_keys}}.dump(), 400, "invalid_field", "endpoint"},
      {"push keys missing", "POST", "/v1/users/1/push-subscriptions",
       json{{"endpoint", "https://push.example/x"}}.dump(), 400, "invalid_field", "keys"},
      {"push p256dh short", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://push.example/x", {{"p256dh", "BCVxsr7N"}, {"auth", kPushAuth}}).dump(),
       400, "invalid_field", "keys.p256dh"},
      {"push p256dh not base64url", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://push.example/x",
                    {{"p256dh", std::string(87, '*')}, {"auth", kPushAuth}})
           .dump(),
       400, "invalid_field", "keys.p256dh"},
      {"push auth wrong length", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://push.example/x", {{"p256dh", kP256dh}, {"auth", "c2hvcnQ"}}).dump(),
       400, "invalid_field", "keys.auth"},
      {"push auth a number", "POST", "/v1/users/1/push-subscriptions",
       Subscription("https://push.example/x", {{"p256dh", kP256dh}, {"auth", 5}}).dump(), 400,
       "invalid_field"},
      {"push unknown user", "POST", "/v1/users/999/push-subscriptions",
       Subscription("https://push.example/x", good_keys).dump(), 404, "user_not_found"},
      {"push delete foreign", "DELETE", "/v1/users/2/push-subscriptions/1", "", 404, "not_found"},
      // Reading and marking read.
      {"read body empty object", "POST", "/v1/users/1/notifications/read", "{}", 400,
       "invalid_field", "ids"},
      {"read ids a string", "POST", "/v1/users/1/notifications/read", R"({"ids": "1"})", 400,
       "invalid_field", "ids"},
      {"read ids of strings", "POST", "/v1/users/1/notifications/read", R"({"ids": ["1"]})", 400,
       "invalid_field", "ids"},
      {"read all a string", "POST", "/v1/users/1/notifications/read", R"({"all": "yes"})", 400,
       "invalid_field", "all"},
      {"read unknown user", "POST", "/v1/users/999/notifications/read", R"({"all": true})", 404,
       "user_not_found"},
      {"list limit zero", "GET", "/v1/users/1/notifications?limit=0", "", 400, "invalid_field",
       "limit"},
      {"list limit word", "GET", "/v1/users/1/notifications?limit=ten", "", 400, "invalid_field",
       "limit"},
      {"list bad cursor", "GET", "/v1/users/1/notifications?cursor=%%%", "", 400, "invalid_field",
       "query"},
      {"list garbage cursor", "GET", "/v1/users/1/notifications?cursor=Z2FyYmFnZQ", "", 400,
       "invalid_field", "cursor"},
      {"list cursor far in the past", "GET",
       "/v1/users/1/notifications?cursor=LTkyMjMzNzIwMzY4NTQ3NzU4MDc6MQ", "", 400, "invalid_field",
       "cursor"},
      {"inbox cursor far in the past", "GET",
       "/v1/inbox/notifications?cursor=LTkyMjMzNzIwMzY4NTQ3NzU4MDc6MQ", "", 400, "invalid_field",
       "cursor", Credential::kToken},
      {"deliveries cursor negative", "GET", "/v1/deliveries?cursor=LTU", "", 400, "invalid_field",
       "cursor"},
      {"list unread maybe", "GET", "/v1/users/1/notifications?unread=maybe", "", 400,
       "invalid_field", "unread"},
      {"deliveries bad status", "GET", "/v1/deliveries?status=lost", "", 400, "invalid_field",
       "status"},
      {"deliveries bad channel", "GET", "/v1/deliveries?channel=fax", "", 400, "invalid_field",
       "channel"},
      {"deliveries bad user", "GET", "/v1/deliveries?user_id=-4", "", 400, "invalid_field",
       "user_id"},
      {"token unknown user", "GET", "/v1/users/999/token", "", 404, "user_not_found"},
      // Missing and bad credentials, with bodies that would otherwise write.
      {"no api key", "POST", "/v1/notifications", Notification({}).dump(), 401, "unauthorized",
       std::nullopt, Credential::kNone},
      {"wrong api key", "POST", "/v1/notifications", Notification({}).dump(), 401, "unauthorized",
       std::nullopt, Credential::kWrongKey},
      {"token instead of api key", "PUT", "/v1/users/1", R"({"email": "x@example.uz"})", 401,
       "unauthorized", std::nullopt, Credential::kToken},
      {"inbox read without token", "POST", "/v1/inbox/read", R"({"all": true})", 401,
       "unauthorized", std::nullopt, Credential::kNone},
      {"inbox read with api key", "POST", "/v1/inbox/read", R"({"all": true})", 401, "unauthorized",
       std::nullopt, Credential::kServerKey},
      {"inbox read bad token", "POST", "/v1/inbox/read", R"({"all": true})", 401, "unauthorized",
       std::nullopt, Credential::kBadToken},
      {"inbox read foreign secret", "POST", "/v1/inbox/read", R"({"all": true})", 401,
       "unauthorized", std::nullopt, Credential::kForeignToken},
      {"inbox list bad token", "GET", "/v1/inbox/notifications", "", 401, "unauthorized",
       std::nullopt, Credential::kBadToken},
      {"inbox stream without token", "GET", "/v1/inbox/stream", "", 401, "unauthorized",
       std::nullopt, Credential::kNone},
      {"inbox read malformed", "POST", "/v1/inbox/read", "{", 400, "invalid_json", std::nullopt,
       Credential::kTokenInQuery},
      {"inbox read nothing", "POST", "/v1/inbox/read", R"({"ids": 3})", 400, "invalid_field", "ids",
       Credential::kToken},
  };
  return cases;
}

class BadInputTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    // User 1 has every kind of row a bad request could touch.
    PutUser(1, {{"email", "aziz@example.uz"}, {"timezone", "Asia/Tashkent"}});
    ASSERT_EQ(client().Put("/v1/users/1/telegram", R"({"chat_id": 900000001})", {kAuth}).status,
              200);
    const json subscription = {{"endpoint", "https://push.example/aziz"},
                               {"keys", {{"p256dh", kP256dh}, {"auth", kPushAuth}}}};
    ASSERT_EQ(client().Post("/v1/users/1/push-subscriptions", subscription.dump(), {kAuth}).status,
              201);
    ASSERT_EQ(Notify(1).status, 201);  // unread, so a mark-read would show
    PutUser(2, {{"email", "dilnoza@example.uz"}});
  }

  std::vector<std::string> Headers(Credential credential, std::string& path) {
    switch (credential) {
      case Credential::kServerKey:
        return {kAuth};
      case Credential::kNone:
        return {};
      case Credential::kWrongKey:
        return {"Authorization: Bearer wrong-key"};
      case Credential::kToken:
        return {"Authorization: Bearer " + Token(1)};
      case Credential::kTokenInQuery:
        path += (path.find('?') == std::string::npos ? "?token=" : "&token=") + Token(1);
        return {};
      case Credential::kBadToken:
        return {"Authorization: Bearer 1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"};
      case Credential::kForeignToken:
        return {"Authorization: Bearer " + MakeSubscriberToken("another-secret", 1, 0, 4'102'444'800)};
    }
    return {};
  }
};

TEST_F(BadInputTest, EachIsRefusedWithItsCodeAndWritesNothing) {
  const std::string before = DatabaseFingerprint(*db_);
  for (const auto& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::string path = c.path;
    const auto headers = Headers(c.credential, path);
    HttpResult response;
    try {
      response = client().Request(c.method, path, c.body, headers);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      client_ = std::make_unique<HttpClient>(server_->port());
      continue;
    }
    EXPECT_EQ(response.status, c.status) << response.body;
    EXPECT_EQ(response.ErrorCode(), c.code) << response.body;
    EXPECT_EQ(response.content_type, "application/json");
    if (c.field) {
      EXPECT_EQ(response.Json()["error"]["field"], *c.field) << response.body;
    }
    EXPECT_EQ(DatabaseFingerprint(*db_), before) << "the request changed the database";
  }
}

TEST_F(BadInputTest, NulInOneBatchItemRefusesThatItemOnly) {
  const json batch = {{"notifications",
                       {Notification({{"title", "first"}}),
                        Notification({{"data", {{"note", std::string("bad\0", 4)}}}}),
                        Notification({{"title", "third"}})}}};
  const auto response = client().Post("/v1/notifications/batch", batch.dump(), {kAuth});
  ASSERT_EQ(response.status, 200) << response.body;
  const auto results = response.Json()["results"];
  ASSERT_EQ(results.size(), 3u) << response.body;
  EXPECT_EQ(results[0]["created"], true) << response.body;
  EXPECT_EQ(results[1]["error"]["code"], "invalid_field") << response.body;
  EXPECT_EQ(results[1]["error"]["field"], "data") << response.body;
  EXPECT_EQ(results[2]["created"], true) << response.body;
}

TEST_F(BadInputTest, TheSameRequestsWithGoodInputDoWrite) {
  // The fingerprint is sensitive: a good request changes it.
  const std::string before = DatabaseFingerprint(*db_);
  ASSERT_EQ(client().Put("/v1/users/1", R"({"locale": "uz"})", {kAuth}).status, 200);
  EXPECT_NE(DatabaseFingerprint(*db_), before);
}

}  // namespace
}  // namespace chopar::http::testing
