// The HTTP API end to end: the real Server on 127.0.0.1 with the real hub
// services on PostgreSQL, driven by libcurl.
#include <gtest/gtest.h>

#include "http/http_server_fixture.hpp"
#include "http/raw_connection.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

// The server's own behaviour, whatever the route.
class HttpServerTest : public HttpServerPgTest {};

TEST_F(HttpServerTest, KeepAliveReusesOneConnection) {
  const auto first = client().Get("/healthz");
  const auto second = client().Get("/healthz");
  const auto third = client().Get("/v1/users/1", {kAuth});
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.new_connections, 1);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second.new_connections, 0);
  EXPECT_EQ(third.status, 404);
  EXPECT_EQ(third.new_connections, 0) << "an error answer keeps the connection too";
  EXPECT_EQ(server_->connections(), 1u);
}

TEST_F(HttpServerTest, HealthzNeedsNoKeyAndMetricsTheApiKey) {
  const auto health = client().Get("/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.Json(), (json{{"status", "ok"}}));
  EXPECT_EQ(health.content_type, "application/json");
  const auto refused = client().Get("/metrics");
  EXPECT_EQ(refused.status, 401) << "metrics are not public on the API port by default";
  EXPECT_EQ(refused.Json()["error"]["code"], "unauthorized");
  EXPECT_EQ(client().Get("/metrics", {"Authorization: Bearer wrong"}).status, 401);
  const auto metrics = client().Get("/metrics", {kAuth});
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics.body.find("chopar_http_requests_total{route=\"/healthz\",status=\"200\"}"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("chopar_http_request_duration_seconds_count{route=\"/healthz\"}"),
            std::string::npos);
}

TEST_F(HttpServerTest, PublicMetricsNeedNoKey) {
  auto settings = DefaultSettings();
  settings.metrics_access = MetricsAccess::kPublic;
  StartServer(settings);
  EXPECT_EQ(client().Get("/metrics").status, 200);
}

TEST_F(HttpServerTest, MetricsServedElsewhereAreNotOnTheApiPort) {
  auto settings = DefaultSettings();
  settings.metrics_access = MetricsAccess::kNotServed;
  StartServer(settings);
  EXPECT_EQ(client().Get("/metrics", {kAuth}).status, 404);
  EXPECT_EQ(client().Get("/healthz").status, 200);
}

TEST_F(HttpServerTest, HealthzIsUnavailableWithoutTheDatabase) {
  db::Pool dead_pool("postgresql:///nonexistent?host=/nonexistent-socket-dir", 1,
                     std::chrono::milliseconds(200));
  Server server(DefaultSettings(), Dependencies{dead_pool, *notify_, *users_, *inbox_, metrics_});
  server.Start();
  HttpClient other(server.port());
  const auto health = other.Get("/healthz");
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.ErrorCode(), "unavailable");
}

TEST_F(HttpServerTest, ServerEndpointsNeedTheApiKey) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  EXPECT_EQ(client().Get("/v1/users/1").status, 401);
  EXPECT_EQ(client().Get("/v1/users/1", {"Authorization: Bearer nope"}).ErrorCode(),
            "unauthorized");
  EXPECT_EQ(client().Get("/v1/users/1", {"Authorization: Bearer " + Token(1)}).status, 401);
  EXPECT_EQ(client().Get("/v1/users/1", {kAuth}).status, 200);
}

TEST_F(HttpServerTest, UnknownRouteAndWrongMethod) {
  const auto missing = client().Get("/v1/nothing-here", {kAuth});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.ErrorCode(), "not_found");
  EXPECT_EQ(missing.content_type, "application/json");
  const auto wrong = client().Request("PATCH", "/v1/users/1", "{}", {kAuth});
  EXPECT_EQ(wrong.status, 405);
  EXPECT_NE(wrong.raw_headers.find("Allow: DELETE, GET, PUT"), std::string::npos)
      << wrong.raw_headers;
}

TEST_F(HttpServerTest, OversizeBodyIs413WithOrWithoutExpectContinue) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  std::string big =
      json{
          {"user_id", 1}, {"type", "task.due"}, {"title", "x"}, {"body", std::string(1 << 20, 'a')}}
          .dump();
  for (const auto& headers :
       std::vector<std::vector<std::string>>{{kAuth, "Content-Type: application/json"},
                                             {kAuth, "Content-Type: application/json", "Expect:"},
                                             {kAuth, "Transfer-Encoding: chunked", "Expect:"}}) {
    HttpClient fresh(server_->port());
    const auto response = fresh.Post("/v1/notifications", big, headers);
    EXPECT_EQ(response.status, 413) << headers.back();
    EXPECT_EQ(response.ErrorCode(), "payload_too_large");
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
  // Exactly the limit is allowed through to validation.
  const auto at_limit = client().Post("/v1/notifications", std::string(1 << 20, ' '), {kAuth});
  EXPECT_EQ(at_limit.status, 400);
  EXPECT_EQ(at_limit.ErrorCode(), "invalid_json");
}

TEST_F(HttpServerTest, MalformedRequestGets400AndClose) {
  RawConnection raw(server_->port());
  raw.Send("THIS IS NOT HTTP\r\n\r\n");
  bool closed = false;
  const std::string reply = raw.ReadToEnd(closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply;
  EXPECT_NE(reply.find("\"bad_request\""), std::string::npos);
}

TEST_F(HttpServerTest, IdleAndSilentConnectionsAreClosedAfterTheirTimeouts) {
  auto settings = DefaultSettings();
  settings.idle_timeout = std::chrono::milliseconds(300);
  settings.header_timeout = std::chrono::milliseconds(300);
  StartServer(settings);
  {
    RawConnection idle(server_->port());
    idle.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    bool closed = false;
    const std::string reply = idle.ReadToEnd(closed);
    EXPECT_TRUE(closed) << "the idle keep-alive connection was not closed";
    EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  }
  {
    RawConnection slow(server_->port());
    slow.Send("GET /healthz HTTP/1.1\r\nHo");
    bool closed = false;
    const std::string reply = slow.ReadToEnd(closed);
    EXPECT_TRUE(closed) << "half a header was waited for forever";
    EXPECT_EQ(reply, "");
  }
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  RawConnection raw(server_->port());
  raw.Send(
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  bool closed = false;
  const std::string reply = raw.ReadToEnd(closed);
  EXPECT_TRUE(closed);
  const auto first = reply.find("HTTP/1.1 200");
  const auto second = reply.find("HTTP/1.1 404");
  const auto third = reply.find("HTTP/1.1 200", first + 1);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_NE(third, std::string::npos);
}

// The four users of the source document, through the API.
TEST_F(HttpServerTest, ChannelChoiceForTheFourCanonUsers) {
  PutUser(1,
          {{"email", "aziz@example.uz"}, {"preferences", {{"email", true}, {"telegram", true}}}});
  ASSERT_EQ(client().Put("/v1/users/1/telegram", R"({"chat_id": 900000001})", {kAuth}).status, 200);
  PutUser(2, {{"email", "dilnoza@example.uz"}, {"preferences", {{"email", false}}}});
  PutUser(3, {{"email", "sardor@example.uz"}});
  PutUser(4, {{"email", "gulnora@example.uz"},
              {"preferences", {{"email", true}, {"telegram", false}}}});
  const json subscription = {{"endpoint", "https://push.example/gulnora"},
                             {"keys", {{"p256dh", kP256dh}, {"auth", kPushAuth}}}};
  ASSERT_EQ(client().Post("/v1/users/4/push-subscriptions", subscription.dump(), {kAuth}).status,
            201);

  const std::vector<std::pair<std::int64_t, json>> expected = {{1, json{"email", "telegram"}},
                                                               {2, json::array()},
                                                               {3, json{"email"}},
                                                               {4, json{"email", "push"}}};
  for (const auto& [user, channels] : expected) {
    const auto response = Notify(user);
    ASSERT_EQ(response.status, 201) << response.body;
    EXPECT_EQ(response.Json()["created"], true);
    EXPECT_EQ(response.Json()["channels"], channels) << "user " << user;
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 4);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 5);

  const auto aziz = client().Get("/v1/users/1", {kAuth}).Json();
  EXPECT_EQ(aziz["channels"],
            (json{{"email", true}, {"telegram", true}, {"push", false}, {"sms", false}}));
  const auto gulnora = client().Get("/v1/users/4", {kAuth}).Json();
  EXPECT_EQ(gulnora["channels"]["push"], true);
}

TEST_F(HttpServerTest, NotificationLifecycle) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  const auto created =
      Notify(1, {{"dedup_key", "task:1:due:2026-10-28"}, {"data", {{"task_id", 1}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::int64_t id = created.Json()["id"];
  const auto again = Notify(1, {{"dedup_key", "task:1:due:2026-10-28"}});
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.Json(), (json{{"id", id}, {"created", false}, {"channels", json::array()}}));

  const auto one = client().Get("/v1/notifications/" + std::to_string(id), {kAuth});
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.Json()["title"], "Muddat yaqin");
  ASSERT_EQ(one.Json()["deliveries"].size(), 1u);
  EXPECT_EQ(one.Json()["deliveries"][0]["channel"], "email");
  EXPECT_EQ(client().Get("/v1/notifications/999999", {kAuth}).ErrorCode(), "not_found");

  const auto second = Notify(1, {{"title", "Ikkinchi"}});
  ASSERT_EQ(second.status, 201);
  EXPECT_EQ(client().Get("/v1/users/1/notifications/unread-count", {kAuth}).Json(),
            (json{{"count", 2}}));
  const auto page = client().Get("/v1/users/1/notifications?limit=1", {kAuth}).Json();
  ASSERT_EQ(page["items"].size(), 1u);
  EXPECT_EQ(page["items"][0]["title"], "Ikkinchi") << "newest first";
  ASSERT_TRUE(page["next_cursor"].is_string());
  const std::string cursor = page["next_cursor"];
  const auto rest =
      client().Get("/v1/users/1/notifications?limit=1&cursor=" + cursor, {kAuth}).Json();
  ASSERT_EQ(rest["items"].size(), 1u);
  EXPECT_EQ(rest["items"][0]["id"], id);
  EXPECT_TRUE(rest["next_cursor"].is_null());

  const auto read =
      client().Post("/v1/users/1/notifications/read", json{{"ids", {id}}}.dump(), {kAuth});
  EXPECT_EQ(read.Json(), (json{{"updated", 1}}));
  EXPECT_EQ(
      client().Post("/v1/users/1/notifications/read", json{{"ids", {id}}}.dump(), {kAuth}).Json(),
      (json{{"updated", 0}}));
  const auto unread = client().Get("/v1/users/1/notifications?unread=true", {kAuth}).Json();
  ASSERT_EQ(unread["items"].size(), 1u);
  EXPECT_EQ(unread["items"][0]["title"], "Ikkinchi");

  const auto deliveries = client().Get("/v1/deliveries?user_id=1&channel=email", {kAuth});
  ASSERT_EQ(deliveries.status, 200) << deliveries.body;
  EXPECT_EQ(deliveries.Json()["items"].size(), 2u);
  EXPECT_EQ(client().Get("/v1/deliveries?status=failed", {kAuth}).Json()["items"].size(), 0u);
}

TEST_F(HttpServerTest, BatchAnswersEachItemInOrder) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  const json batch = {
      {"notifications",
       {{{"user_id", 1}, {"type", "task.due"}, {"title", "a"}},
        {{"user_id", 777}, {"type", "task.due"}, {"title", "b"}},
        {{"user_id", 1}, {"type", "Bad Type"}, {"title", "c"}},
        "not an object",
        {{"user_id", 1}, {"type", "task.done"}, {"title", "d"}, {"dedup_key", "k"}},
        {{"user_id", 1}, {"type", "task.done"}, {"title", "d"}, {"dedup_key", "k"}}}}};
  const auto response = client().Post("/v1/notifications/batch", batch.dump(), {kAuth});
  ASSERT_EQ(response.status, 200) << response.body;
  const auto results = response.Json()["results"];
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0]["created"], true);
  EXPECT_EQ(results[0]["channels"], json{"email"});
  EXPECT_EQ(results[1]["error"]["code"], "user_not_found");
  EXPECT_EQ(results[2]["error"]["code"], "invalid_field");
  EXPECT_EQ(results[2]["error"]["field"], "type");
  EXPECT_EQ(results[3]["error"]["code"], "invalid_json");
  EXPECT_EQ(results[4]["created"], true);
  EXPECT_EQ(results[5]["created"], false);
  EXPECT_EQ(results[5]["id"], results[4]["id"]);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 2);

  json too_many = {{"notifications", json::array()}};
  for (int i = 0; i < 1001; ++i)
    too_many["notifications"].push_back({{"user_id", 1}, {"type", "a"}, {"title", "t"}});
  const auto refused = client().Post("/v1/notifications/batch", too_many.dump(), {kAuth});
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.Json()["error"]["field"], "notifications");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 2);
  const auto empty = client().Post("/v1/notifications/batch", R"({"notifications": []})", {kAuth});
  EXPECT_EQ(empty.Json(), (json{{"results", json::array()}}));
}

TEST_F(HttpServerTest, AddressesThroughTheApi) {
  PutUser(5, {{"email", "a@b.uz"},
              {"phone", "+998901234567"},
              {"timezone", "Asia/Tashkent"},
              {"locale", "uz"},
              {"quiet_hours", {{"start", "22:00"}, {"end", "08:00"}}}});
  auto user = client().Get("/v1/users/5", {kAuth}).Json();
  EXPECT_EQ(user["timezone"], "Asia/Tashkent");
  EXPECT_EQ(user["channels"]["sms"], true);
  // null clears, absent keeps.
  PutUser(5, {{"phone", nullptr}});
  user = client().Get("/v1/users/5", {kAuth}).Json();
  EXPECT_TRUE(user["phone"].is_null());
  EXPECT_EQ(user["email"], "a@b.uz");

  const json subscription = {{"endpoint", "https://push.example/5"},
                             {"keys", {{"p256dh", kP256dh}, {"auth", kPushAuth}}}};
  const auto added = client().Post("/v1/users/5/push-subscriptions", subscription.dump(), {kAuth});
  ASSERT_EQ(added.status, 201) << added.body;
  const auto same = client().Post("/v1/users/5/push-subscriptions", subscription.dump(), {kAuth});
  EXPECT_EQ(same.status, 200);
  EXPECT_EQ(same.Json()["id"], added.Json()["id"]);
  const std::string sub_path =
      "/v1/users/5/push-subscriptions/" + std::to_string(added.Json()["id"].get<std::int64_t>());
  const auto removed = client().Delete(sub_path, {kAuth});
  EXPECT_EQ(removed.status, 204);
  EXPECT_EQ(removed.body, "");
  EXPECT_EQ(client().Delete(sub_path, {kAuth}).status, 404);

  ASSERT_EQ(
      client().Put("/v1/users/5/telegram", R"({"chat_id": 4503599627370496})", {kAuth}).status,
      200);
  EXPECT_EQ(client().Get("/v1/users/5", {kAuth}).Json()["channels"]["telegram"], true);
  EXPECT_EQ(client().Delete("/v1/users/5/telegram", {kAuth}).status, 204);
  EXPECT_EQ(client().Get("/v1/users/5", {kAuth}).Json()["channels"]["telegram"], false);
}

TEST_F(HttpServerTest, InboxWithTheSubscriberToken) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  PutUser(2, {{"email", "dilnoza@example.uz"}});
  ASSERT_EQ(Notify(1).status, 201);
  ASSERT_EQ(Notify(2).status, 201);
  const auto token_response = client().Get("/v1/users/1/token", {kAuth});
  ASSERT_EQ(token_response.status, 200);
  const std::string token = token_response.Json()["token"];
  EXPECT_TRUE(token.starts_with("v2.1.0.")) << token;
  EXPECT_EQ(client().Get("/v1/users/999/token", {kAuth}).ErrorCode(), "user_not_found");

  const auto list = client().Get("/v1/inbox/notifications", {"Authorization: Bearer " + token});
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.Json()["items"].size(), 1u) << "only the token's user";
  EXPECT_NE(list.raw_headers.find("Access-Control-Allow-Origin: *"), std::string::npos);
  EXPECT_EQ(client().Get("/v1/inbox/unread-count?token=" + token).Json(), (json{{"count", 1}}));
  // Another user's ids are ignored.
  const std::int64_t other_id =
      client().Get("/v1/users/2/notifications", {kAuth}).Json()["items"][0]["id"];
  EXPECT_EQ(client().Post("/v1/inbox/read?token=" + token, json{{"ids", {other_id}}}.dump()).Json(),
            (json{{"updated", 0}}));
  EXPECT_EQ(client().Post("/v1/inbox/read?token=" + token, R"({"all": true})").Json(),
            (json{{"updated", 1}}));
  EXPECT_EQ(client().Get("/v1/users/2/notifications/unread-count", {kAuth}).Json(),
            (json{{"count", 1}}));
}

TEST_F(HttpServerTest, StopIsGracefulAndIdempotent) {
  ASSERT_EQ(client().Get("/healthz").status, 200);  // leaves an idle keep-alive connection
  server_->Stop();
  EXPECT_EQ(server_->connections(), 0u);
  server_->Stop();
  EXPECT_THROW(HttpClient(server_->port()).Get("/healthz"), std::runtime_error);
}

}  // namespace
}  // namespace chopar::http::testing
