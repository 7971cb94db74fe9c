// POST /v1/users/import and a user's data through the API: the real Server
// on 127.0.0.1 with the real hub services on PostgreSQL.
#include <gtest/gtest.h>

#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

const std::string kNdjson = "Content-Type: application/x-ndjson";

class UserImportTest : public HttpServerPgTest {
 protected:
  HttpResult Import(const std::string& body, const std::string& content_type = kNdjson) {
    return client().Post("/v1/users/import", body, {kAuth, content_type});
  }

  // The user as GET /v1/users/{id} shows it, without its times.
  json Shown(std::int64_t id) {
    json user = client().Get("/v1/users/" + std::to_string(id), {kAuth}).Json();
    user.erase("created_at");
    user.erase("updated_at");
    return user;
  }
};

TEST_F(UserImportTest, DataIsShownMergedAndBoundedThroughPut) {
  const auto put = [&](const json& body) {
    return client().Put("/v1/users/5", body.dump(), {kAuth, "Content-Type: application/json"});
  };
  EXPECT_EQ(put({{"data", {{"plan", "pro"}, {"seats", 3}}}}).Json()["data"],
            (json{{"plan", "pro"}, {"seats", 3}}));
  EXPECT_EQ(put({{"data", {{"seats", nullptr}}}}).Json()["data"], (json{{"plan", "pro"}}));
  EXPECT_EQ(Shown(5)["data"], (json{{"plan", "pro"}}));
  const auto big = put({{"data", {{"notes", std::string(20000, 'x')}}}});
  EXPECT_EQ(big.status, 400);
  EXPECT_EQ(big.ErrorCode(), "invalid_field");
  EXPECT_EQ(big.Json()["error"]["field"], "data");
  EXPECT_EQ(put({{"data", nullptr}}).Json()["data"], json::object());
}

// Good and bad lines mixed: the good ones are written, each bad one is
// reported with its line number and the error PUT would give, and nothing
// of a bad line is written. Blank lines are skipped but counted in numbers.
TEST_F(UserImportTest, GoodAndBadLinesMixedReportTheBadOnesByLineNumber) {
  client().Put("/v1/users/10",
               json{{"email", "old@example.uz"},
                    {"preferences", {{"email", true}, {"sms", true}}},
                    {"data", {{"plan", "free"}, {"seats", 1}}}}
                   .dump(),
               {kAuth, "Content-Type: application/json"});
  const std::string body =
      json{{"id", 1}, {"email", "a@example.uz"}, {"data", {{"plan", "pro"}}}}.dump() + "\n" +
      json{{"id", 2}, {"email", "not an address"}}.dump() + "\n" +  // line 2
      "\n" +                                                        // line 3: blank
      "{\"id\": 3, \"email\": \n" +                                 // line 4: malformed
      json{{"email", "no-id@example.uz"}}.dump() + "\n" +           // line 5: no id
      json{{"id", 10},
           {"preferences", {{"sms", nullptr}}},
           {"data", {{"seats", nullptr}, {"org", "Olma"}}},
           {"timezone", "Asia/Tashkent"}}
          .dump() +
      "\n" +                                                                    // line 6
      json{{"id", 4}, {"locale", "uz"}, {"unknown", true}}.dump() + "\r\n" +    // line 7
      json{{"id", 5}, {"phone", "+998 90 123-45-67"}, {"admin", true}}.dump();  // line 8
  const auto response = Import(body);
  ASSERT_EQ(response.status, 200) << response.body;
  const json answer = response.Json();
  EXPECT_EQ(answer["received"], 7);
  EXPECT_EQ(answer["imported"], 3);
  EXPECT_EQ(answer["created"], 2);
  EXPECT_EQ(answer["updated"], 1);
  EXPECT_EQ(answer["failed"], 4);
  EXPECT_EQ(answer["errors_truncated"], false);
  ASSERT_EQ(answer["errors"].size(), 4u) << answer.dump();
  EXPECT_EQ(answer["errors"][0]["line"], 2);
  EXPECT_EQ(answer["errors"][0]["code"], "invalid_field");
  EXPECT_EQ(answer["errors"][0]["field"], "email");
  EXPECT_EQ(answer["errors"][1]["line"], 4);
  EXPECT_EQ(answer["errors"][1]["code"], "invalid_json");
  EXPECT_FALSE(answer["errors"][1].contains("field"));
  EXPECT_EQ(answer["errors"][2]["line"], 5);
  EXPECT_EQ(answer["errors"][2]["field"], "id");
  EXPECT_EQ(answer["errors"][3]["line"], 7);
  EXPECT_EQ(answer["errors"][3]["field"], "unknown");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users WHERE id IN (2, 3, 4)"), 0);
  // The audit log has the batch once, not a row per user.
  EXPECT_EQ(db_->Scalar("SELECT after->>'ids' FROM chopar.audit_log WHERE resource = "
                        "'user_import' AND action = 'create'"),
            "[1, 5]");
  EXPECT_EQ(db_->Scalar("SELECT after->>'ids' FROM chopar.audit_log WHERE resource = "
                        "'user_import' AND action = 'update'"),
            "[10]");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log WHERE resource = 'user' AND "
                       "resource_id IN ('1', '5')"),
            0);

  // The lines applied as PUT applies the same bodies.
  const json merged = Shown(10);
  EXPECT_EQ(merged["email"], "old@example.uz");
  EXPECT_EQ(merged["preferences"], (json{{"email", true}}));
  EXPECT_EQ(merged["data"], (json{{"plan", "free"}, {"org", "Olma"}}));
  EXPECT_EQ(merged["timezone"], "Asia/Tashkent");
  EXPECT_EQ(Shown(5)["phone"], "+998901234567");
  EXPECT_EQ(Shown(5)["admin"], true);
  client().Put("/v1/users/11",
               json{{"email", "old@example.uz"},
                    {"preferences", {{"email", true}, {"sms", true}}},
                    {"data", {{"plan", "free"}, {"seats", 1}}}}
                   .dump(),
               {kAuth, "Content-Type: application/json"});
  client().Put("/v1/users/11",
               json{{"preferences", {{"sms", nullptr}}},
                    {"data", {{"seats", nullptr}, {"org", "Olma"}}},
                    {"timezone", "Asia/Tashkent"}}
                   .dump(),
               {kAuth, "Content-Type: application/json"});
  json by_put = Shown(11);
  by_put["id"] = 10;
  EXPECT_EQ(merged, by_put);
}

// Lines with addresses or tenants, a user twice, a merge over the bounds
// and batches: each line still applies as its own PUT would, in order.
TEST_F(UserImportTest, EveryKindOfLineAppliesInOrderAcrossBatches) {
  client().Put("/v1/users/7", json{{"data", {{"a", std::string(9000, 'x')}}}}.dump(),
               {kAuth, "Content-Type: application/json"});
  std::string body;
  for (int id = 100; id < 2600; ++id) {
    body += json{{"id", id}, {"email", "u" + std::to_string(id) + "@example.uz"}}.dump() + "\n";
  }
  body += json{{"id", 100}, {"locale", "ru"}}.dump() + "\n";                         // 2501: again
  body += json{{"id", 7}, {"data", {{"b", std::string(9000, 'y')}}}}.dump() + "\n";  // 2502
  body += json{{"id", 8}, {"tenants", {"nowhere"}}}.dump() + "\n";                   // 2503
  body += json{{"id", 9}, {"email", "t@example.uz"}, {"addresses", json::object()}}.dump();
  const json answer = Import(body).Json();
  EXPECT_EQ(answer["received"], 2504);
  EXPECT_EQ(answer["created"], 2501);
  EXPECT_EQ(answer["updated"], 1);
  EXPECT_EQ(answer["failed"], 2);
  ASSERT_EQ(answer["errors"].size(), 2u) << answer.dump();
  EXPECT_EQ(answer["errors"][0]["line"], 2502);
  EXPECT_EQ(answer["errors"][0]["field"], "data");
  EXPECT_EQ(answer["errors"][1]["line"], 2503);
  EXPECT_EQ(answer["errors"][1]["field"], "tenants[0]");
  EXPECT_EQ(Shown(100)["locale"], "ru");
  EXPECT_EQ(Shown(100)["email"], "u100@example.uz");
  EXPECT_EQ(Shown(9)["email"], "t@example.uz");
  EXPECT_EQ(Shown(7)["data"].size(), 1u);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 2502);
}

// A data small as JSON but over 16 KB as PostgreSQL writes its numbers
// (1e300: 301 digits) passes the batch's own count and meets the CHECK,
// which fails the whole statement: each of its lines is then applied alone,
// and only that one is refused.
TEST_F(UserImportTest, ALineTheDatabaseRefusesFailsOnlyItselfNotItsBatch) {
  json data = {{"n", json::array()}};
  for (int i = 0; i < 60; ++i) data["n"].push_back(1e300);
  const std::string body = json{{"id", 1}, {"email", "a@example.uz"}}.dump() + "\n" +
                           json{{"id", 2}, {"data", data}}.dump() + "\n" +
                           json{{"id", 3}, {"locale", "uz"}}.dump();
  ASSERT_LT(data.dump().size(), 4096u);
  const json answer = Import(body).Json();
  EXPECT_EQ(answer["created"], 2) << answer.dump();
  EXPECT_EQ(answer["failed"], 1);
  ASSERT_EQ(answer["errors"].size(), 1u);
  EXPECT_EQ(answer["errors"][0]["line"], 2);
  EXPECT_EQ(answer["errors"][0]["field"], "data");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users WHERE id IN (1, 3)"), 2);
}

TEST_F(UserImportTest, ErrorsAreListedUpToAThousand) {
  std::string body;
  for (int i = 0; i < 1005; ++i) body += "not json\n";
  const json answer = Import(body).Json();
  EXPECT_EQ(answer["failed"], 1005);
  EXPECT_EQ(answer["errors"].size(), 1000u);
  EXPECT_EQ(answer["errors_truncated"], true);
}

TEST_F(UserImportTest, OnlyNdjsonIsTaken) {
  const std::string line = json{{"id", 1}}.dump();
  const auto as_json = Import(line, "Content-Type: application/json");
  EXPECT_EQ(as_json.status, 400);
  EXPECT_EQ(as_json.ErrorCode(), "bad_request");
  EXPECT_EQ(Import(line, "Content-Type: application/x-ndjson; charset=utf-8").status, 200);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 1);
}

// The route's own body limit: beyond it 413 and nothing written; other
// routes keep theirs.
TEST_F(UserImportTest, ABodyOverTheImportLimitIs413) {
  Settings settings = DefaultSettings();
  settings.import_body_limit = 4096;
  StartServer(settings);
  std::string body;
  for (int id = 1; body.size() <= 4096; ++id) body += json{{"id", id}}.dump() + "\n";
  const auto refused = Import(body);
  EXPECT_EQ(refused.status, 413);
  EXPECT_EQ(refused.ErrorCode(), "payload_too_large");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 0);
  EXPECT_EQ(Import(body.substr(0, 4000 - 4000 % 20)).status, 200);
}

}  // namespace
}  // namespace chopar::http::testing
