// GET /v1/users/{id}/export (docs/api.md "Exporting a user's data"): every
// notification, delivery, device, push subscription, schedule and address
// the user has through the API is in the export with the same values.
#include <gtest/gtest.h>

#include <set>

#include "http/console_routes.hpp"
#include "http/device_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/schedule_routes.hpp"
#include "schedule/schedule_service.hpp"

namespace chopar::http::testing {
namespace {

class UserExportTest : public HttpServerPgTest {
 protected:
  void AddRoutes(Router& router) override {
    schedules_ = std::make_unique<schedule::ScheduleService>(*pool_, clock_);
    RegisterScheduleRoutes(router, *schedules_);
    RegisterDeviceRoutes(router, *pool_);
    RegisterConsoleRoutes(router, *pool_, *users_, "");
  }

  nlohmann::json Ok(const HttpResult& result) {
    EXPECT_GE(result.status, 200) << result.body;
    EXPECT_LT(result.status, 300) << result.body;
    return result.Json();
  }
  nlohmann::json Export(const std::string& query = "") {
    return Ok(client().Get("/v1/users/5/export" + query, {kAuth}));
  }

  std::unique_ptr<schedule::ScheduleService> schedules_;
};

TEST_F(UserExportTest, EverythingTheApiShowsOfTheUserIsInTheExport) {
  if (IsSkipped()) return;
  Ok(client().Put("/v1/users/5",
                  R"({"email": "aziz@example.uz", "phone": "+998901234567", "locale": "uz",
                      "preferences": {"sms": false}})",
                  {kAuth}));
  Ok(client().Put("/v1/users/6", R"({"email": "other@example.uz"})", {kAuth}));
  Ok(client().Put("/v1/users/5/telegram", R"({"chat_id": 900000001})", {kAuth}));
  const nlohmann::json subscription = {{"endpoint", "https://push.example/5"},
                                       {"keys", {{"p256dh", kP256dh}, {"auth", kPushAuth}}}};
  Ok(client().Post("/v1/users/5/push-subscriptions", subscription.dump(), {kAuth}));
  Ok(client().Post("/v1/users/5/devices",
                   R"({"platform": "android", "token": "fcm-token-of-user-5"})", {kAuth}));
  Ok(client().Put("/v1/schedules/morning-5",
                  R"({"user_id": 5, "cron": "0 9 * * *",
                      "notification": {"type": "daily.plan", "title": "Bugungi reja"}})",
                  {kAuth}));
  db_->Scalar("INSERT INTO chopar.topics (key, name) VALUES ('news', 'News')");
  db_->Scalar("INSERT INTO chopar.topic_subscribers (topic, user_id) VALUES ('news', 5)");
  for (int i = 0; i < 105; ++i) ASSERT_EQ(Notify(5).status, 201);
  ASSERT_EQ(Notify(6).status, 201);
  ASSERT_EQ(Notify(5, {{"delay_seconds", 3600}}).status, 201);
  Ok(client().Post("/v1/users/5/notifications/read", R"({"all": true})", {kAuth}));

  const nlohmann::json first = Export();
  EXPECT_EQ(first.at("user"), Ok(client().Get("/v1/users/5", {kAuth})));
  EXPECT_EQ(first.at("push_subscriptions"),
            Ok(client().Get("/v1/users/5/push-subscriptions", {kAuth})).at("items"));
  EXPECT_EQ(first.at("devices"), Ok(client().Get("/v1/users/5/devices", {kAuth})).at("items"));
  ASSERT_EQ(first.at("schedules").size(), 1u);
  EXPECT_EQ(first.at("schedules")[0], Ok(client().Get("/v1/schedules/morning-5", {kAuth})));
  ASSERT_EQ(first.at("topics").size(), 1u);
  EXPECT_EQ(first.at("topics")[0].at("topic"), "news");
  ASSERT_EQ(first.at("delayed_notifications").size(), 1u);
  EXPECT_EQ(first.at("delayed_notifications")[0].at("request").at("user_id"), 5);
  EXPECT_FALSE(first.at("audit").empty());  // the API's changes are audited
  EXPECT_EQ(first.at("truncated"), nlohmann::json::array());

  // The notifications, a page of 100 and the rest after the cursor: each as
  // GET /v1/notifications/{id} shows it, deliveries included; every one the
  // inbox lists is there.
  ASSERT_EQ(first.at("notifications").size(), 100u);
  const auto cursor = first.at("notifications_next_cursor").get<std::string>();
  const nlohmann::json second = Export("?cursor=" + cursor);
  ASSERT_EQ(second.at("notifications").size(), 5u);
  EXPECT_TRUE(second.at("notifications_next_cursor").is_null());
  std::map<std::int64_t, nlohmann::json> exported;
  for (const auto* page : {&first, &second}) {
    for (const auto& n : page->at("notifications")) exported[n.at("id").get<std::int64_t>()] = n;
  }
  ASSERT_EQ(exported.size(), 105u);
  for (const auto& [id, n] : exported) {
    EXPECT_EQ(n, Ok(client().Get("/v1/notifications/" + std::to_string(id), {kAuth})));
    EXPECT_EQ(n.at("user_id"), 5);
  }
  std::set<std::int64_t> listed;
  std::string page_cursor;
  do {
    const auto page =
        Ok(client().Get("/v1/users/5/notifications?limit=100" +
                            (page_cursor.empty() ? std::string() : "&cursor=" + page_cursor),
                        {kAuth}));
    for (const auto& item : page.at("items")) {
      const auto id = item.at("id").get<std::int64_t>();
      listed.insert(id);
      ASSERT_TRUE(exported.contains(id)) << id;
      // The list shows the notification object; the export, as GET
      // /v1/notifications/{id}, adds its deliveries and workflow run.
      nlohmann::json without_deliveries = exported.at(id);
      without_deliveries.erase("deliveries");
      without_deliveries.erase("workflow");
      EXPECT_EQ(item, without_deliveries);
    }
    page_cursor = page.value("next_cursor", nlohmann::json()).is_string()
                      ? page.at("next_cursor").get<std::string>()
                      : "";
  } while (!page_cursor.empty());
  EXPECT_EQ(listed.size(), 105u);

  EXPECT_EQ(client().Get("/v1/users/5/export?cursor=x", {kAuth}).status, 400);
  EXPECT_EQ(client().Get("/v1/users/404/export", {kAuth}).status, 404);
}

}  // namespace
}  // namespace chopar::http::testing
