// The console's endpoints (docs/api.md "Console support") and the embedded
// web files, through the real server on a real database.
#include <gtest/gtest.h>

#include "channels/sink_channel.hpp"
#include "http/console_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/schedule_routes.hpp"
#include "http/web_routes.hpp"
#include "schedule/schedule_service.hpp"

namespace chopar::http::testing {
namespace {

constexpr const char* kVapidPublicKey = kP256dh;  // any key the browser would take

class ConsoleRoutesTest : public HttpServerPgTest {
 protected:
  void AddRoutes(Router& router) override {
    schedules_ = std::make_unique<schedule::ScheduleService>(*pool_, clock_);
    RegisterScheduleRoutes(router, *schedules_);
    RegisterConsoleRoutes(router, *pool_, *users_, vapid_key_);
    RegisterWebRoutes(router);
  }

  // A notification for `user` on `channels`; returns its delivery ids by channel.
  std::map<std::string, std::int64_t> NotifyOn(std::int64_t user, const nlohmann::json& channels) {
    const auto created = Notify(user, {{"channels", channels}});
    EXPECT_EQ(created.status, 201) << created.body;
    std::map<std::string, std::int64_t> ids;
    const auto id = created.Json().at("id").get<std::int64_t>();
    const auto n = client().Get("/v1/notifications/" + std::to_string(id), {kAuth}).Json();
    for (const auto& d : n.at("deliveries")) ids[d.at("channel")] = d.at("id").get<std::int64_t>();
    return ids;
  }

  void SetDelivery(std::int64_t id, const std::string& assignments) {
    db_->Scalar("UPDATE chopar.deliveries SET " + assignments +
                " WHERE id = " + std::to_string(id) + " RETURNING id");
  }

  std::string vapid_key_;
  std::unique_ptr<schedule::ScheduleService> schedules_;
};

TEST_F(ConsoleRoutesTest, SinkMessagesShowEachChannelAsItsUserWouldHaveSeenIt) {
  PutUser(1, {{"email", "aziz@example.uz"}, {"phone", "+998901234567"}, {"locale", "uz"}});
  channels::SinkChannel sink(*pool_, "https://chopar.example");
  channels::Message email;
  email.delivery_id = 11;
  email.notification_id = 5;
  email.user_id = 1;
  email.channel = core::ChannelKind::kEmail;
  email.title = "Muddat <yaqin>";
  email.body = "Non olish — 18:00";
  email.link = "/tasks/1";
  email.email = "aziz@example.uz";
  channels::Message sms = email;
  sms.delivery_id = 12;
  sms.channel = core::ChannelKind::kSms;
  sms.email.reset();
  sms.phone = "+998901234567";
  const auto outcomes = sink.Send(std::vector<channels::Message>{email, sms});
  ASSERT_EQ(outcomes.size(), 2u);

  const auto all = client().Get("/v1/sink/messages", {kAuth});
  ASSERT_EQ(all.status, 200) << all.body;
  const auto items = all.Json().at("items");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].at("channel"), "sms");  // newest first
  EXPECT_TRUE(items[0].at("html").is_null());
  EXPECT_NE(items[0].at("body").get<std::string>().find("https://chopar.example/tasks/1"),
            std::string::npos);
  const auto& mail = items[1];
  EXPECT_EQ(mail.at("delivery_id"), 11);
  EXPECT_EQ(mail.at("address"), "aziz@example.uz");
  EXPECT_EQ(mail.at("title"), "Muddat <yaqin>");
  const auto html = mail.at("html").get<std::string>();
  EXPECT_NE(html.find("Muddat &lt;yaqin&gt;"), std::string::npos) << html;
  EXPECT_NE(html.find("https://chopar.example/tasks/1"), std::string::npos);

  const auto page = client().Get("/v1/sink/messages?limit=1&channel=email", {kAuth}).Json();
  ASSERT_EQ(page.at("items").size(), 1u);
  EXPECT_EQ(page.at("items")[0].at("channel"), "email");
  EXPECT_TRUE(page.at("next_cursor").is_null());
  const auto first = client().Get("/v1/sink/messages?limit=1", {kAuth}).Json();
  const auto second =
      client()
          .Get("/v1/sink/messages?limit=1&cursor=" + first.at("next_cursor").get<std::string>(),
               {kAuth})
          .Json();
  EXPECT_EQ(second.at("items")[0].at("id"), mail.at("id"));
  EXPECT_EQ(client().Get("/v1/sink/messages?channel=fax", {kAuth}).ErrorCode(), "invalid_field");
  EXPECT_EQ(client().Get("/v1/sink/messages?cursor=%21", {kAuth}).ErrorCode(), "invalid_field");
  EXPECT_EQ(client().Get("/v1/sink/messages").status, 401);
}

TEST_F(ConsoleRoutesTest, RetryRequeuesAFailedDeliveryWithAttemptsReset) {
  PutUser(1, {{"email", "a@b.uz"}});
  const auto id = NotifyOn(1, {"email"}).at("email");
  SetDelivery(id,
              "status = 'failed', attempts = 8, last_error = 'smtp: 554 rejected', "
              "next_attempt_at = now() + interval '1 day'");
  const auto response =
      client().Post("/v1/deliveries/" + std::to_string(id) + "/retry", "", {kAuth});
  ASSERT_EQ(response.status, 200) << response.body;
  const auto delivery = response.Json();
  EXPECT_EQ(delivery.at("id"), id);
  EXPECT_EQ(delivery.at("status"), "queued");
  EXPECT_EQ(delivery.at("attempts"), 0);
  EXPECT_EQ(delivery.at("last_error"), "smtp: 554 rejected");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE id = " + std::to_string(id) +
                       " AND next_attempt_at <= now()"),
            1);
  // The retry is in the audit log, once, by the bootstrap key.
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log WHERE resource = 'delivery' AND "
                       "resource_id = '" + std::to_string(id) +
                       "' AND actor = 'api_key' AND before->>'status' = 'failed' AND "
                       "after->>'status' = 'queued'"),
            1);
}

TEST_F(ConsoleRoutesTest, RetryRefusesSentAndSendingDeliveriesAndUnknownIds) {
  PutUser(1, {{"email", "a@b.uz"}, {"phone", "+998901234567"}, {"preferences", {{"sms", true}}}});
  const auto ids = NotifyOn(1, {"email", "sms"});
  SetDelivery(ids.at("email"),
              "status = 'sent', claimed_at = now(), sent_at = now(), attempts = 1");
  SetDelivery(ids.at("sms"),
              "status = 'sending', claimed_at = now(), lease_until = now() + "
              "interval '1 minute', claim_token = gen_random_uuid(), attempts = 1");
  for (const auto& [channel, id] : ids) {
    const auto response =
        client().Post("/v1/deliveries/" + std::to_string(id) + "/retry", "", {kAuth});
    EXPECT_EQ(response.status, 409) << channel;
    EXPECT_EQ(response.ErrorCode(), "conflict") << channel;
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE attempts = 1"), 2);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.audit_log WHERE resource = 'delivery'"), 0);
  EXPECT_EQ(client().Post("/v1/deliveries/999999/retry", "", {kAuth}).ErrorCode(), "not_found");
}

TEST_F(ConsoleRoutesTest, DeliveryStatsCountEachMinuteByChannelAndStatus) {
  PutUser(1, {{"email", "a@b.uz"}, {"phone", "+998901234567"}, {"preferences", {{"sms", true}}}});
  for (int i = 0; i < 3; ++i) NotifyOn(1, {"email", "sms"});
  const auto failed = NotifyOn(1, {"email"}).at("email");
  SetDelivery(failed, "status = 'failed'");
  // An old delivery is outside the window.
  SetDelivery(NotifyOn(1, {"email"}).at("email"), "created_at = now() - interval '2 hours'");

  const auto stats = client().Get("/v1/stats/deliveries?minutes=60", {kAuth});
  ASSERT_EQ(stats.status, 200) << stats.body;
  std::map<std::pair<std::string, std::string>, std::int64_t> counts;
  const auto minutes = stats.Json();  // owned here: the loop below reads into it
  for (const auto& row : minutes.at("minutes")) {
    EXPECT_EQ(row.at("at").get<std::string>().substr(17), "00Z") << "minute starts";
    counts[{row.at("channel").get<std::string>(), row.at("status").get<std::string>()}] +=
        row.at("count").get<std::int64_t>();
  }
  EXPECT_EQ(counts,
            (std::map<std::pair<std::string, std::string>, std::int64_t>{
                {{"email", "queued"}, 3}, {{"email", "failed"}, 1}, {{"sms", "queued"}, 3}}))
      << stats.body;
  EXPECT_EQ(client().Get("/v1/stats/deliveries?minutes=0", {kAuth}).ErrorCode(), "invalid_field");
  EXPECT_EQ(client().Get("/v1/stats/deliveries?minutes=1441", {kAuth}).ErrorCode(),
            "invalid_field");

  const auto overview = client().Get("/v1/stats/overview", {kAuth}).Json();
  EXPECT_EQ(overview.at("queued"), 7);
  EXPECT_EQ(overview.at("queue_depth"), 7);
  EXPECT_EQ(overview.at("last_hour").at("failed"), 1);
  EXPECT_DOUBLE_EQ(overview.at("failure_rate").get<double>(), 1.0);  // 1 failed, 0 sent
  EXPECT_EQ(overview.at("schedules_due"), 0);
  EXPECT_EQ(overview.at("schedule_lag_seconds"), 0.0);
}

TEST_F(ConsoleRoutesTest, SchedulesAndUsersAreListedInKeyOrderPageByPage) {
  for (int id : {3, 1, 2}) PutUser(id, {{"timezone", "Asia/Tashkent"}});
  for (const char* key : {"b-pill", "a-pill", "c-pill"}) {
    const nlohmann::json body = {
        {"user_id", key[0] == 'c' ? 2 : 1},
        {"cron", "5 18 * * *"},
        {"notification", {{"type", "pill.reminder"}, {"title", "Sitramon"}}}};
    ASSERT_EQ(client().Put(std::string("/v1/schedules/") + key, body.dump(), {kAuth}).status, 200);
  }
  const auto first = client().Get("/v1/schedules?limit=2", {kAuth}).Json();
  ASSERT_EQ(first.at("items").size(), 2u);
  EXPECT_EQ(first.at("items")[0].at("key"), "a-pill");
  EXPECT_EQ(first.at("items")[1].at("key"), "b-pill");
  EXPECT_EQ(first.at("items")[0], client().Get("/v1/schedules/a-pill", {kAuth}).Json());
  const auto rest =
      client()
          .Get("/v1/schedules?limit=2&cursor=" + first.at("next_cursor").get<std::string>(),
               {kAuth})
          .Json();
  ASSERT_EQ(rest.at("items").size(), 1u);
  EXPECT_EQ(rest.at("items")[0].at("key"), "c-pill");
  EXPECT_TRUE(rest.at("next_cursor").is_null());
  EXPECT_EQ(client().Get("/v1/schedules?user_id=2", {kAuth}).Json().at("items").size(), 1u);

  const auto users = client().Get("/v1/users?limit=2", {kAuth}).Json();
  ASSERT_EQ(users.at("items").size(), 2u);
  EXPECT_EQ(users.at("items")[0], client().Get("/v1/users/1", {kAuth}).Json());
  const auto more =
      client()
          .Get("/v1/users?cursor=" + users.at("next_cursor").get<std::string>(), {kAuth})
          .Json();
  ASSERT_EQ(more.at("items").size(), 1u);
  EXPECT_EQ(more.at("items")[0].at("id"), 3);
}

TEST_F(ConsoleRoutesTest, BrowsersOptIntoPushWithTheirSubscriberToken) {
  PutUser(4, nlohmann::json::object());
  EXPECT_EQ(
      client().Get("/v1/inbox/vapid-public-key", {"Authorization: Bearer " + Token(4)}).ErrorCode(),
      "not_found");
  vapid_key_ = kVapidPublicKey;
  StartServer(DefaultSettings());
  const std::string auth = "Authorization: Bearer " + Token(4);
  const auto key =
      client().Get("/v1/inbox/vapid-public-key", {auth, "Origin: https://app.example"});
  ASSERT_EQ(key.status, 200) << key.body;
  EXPECT_EQ(key.Json().at("public_key"), kVapidPublicKey);
  EXPECT_NE(key.raw_headers.find("Access-Control-Allow-Origin: *"), std::string::npos);

  const nlohmann::json subscription = {{"endpoint", "https://push.example.net/send/4"},
                                       {"keys", {{"p256dh", kP256dh}, {"auth", kPushAuth}}}};
  const auto created = client().Post("/v1/inbox/push-subscriptions", subscription.dump(), {auth});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(client().Post("/v1/inbox/push-subscriptions", subscription.dump(), {auth}).status, 200);
  const auto listed = client().Get("/v1/users/4/push-subscriptions", {kAuth}).Json().at("items");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].at("id"), created.Json().at("id"));
  EXPECT_EQ(listed[0].at("endpoint"), "https://push.example.net/send/4");
  EXPECT_EQ(client().Post("/v1/inbox/push-subscriptions", subscription.dump()).status, 401);
  EXPECT_EQ(client().Get("/v1/users/99/push-subscriptions", {kAuth}).ErrorCode(), "user_not_found");
}

TEST_F(ConsoleRoutesTest, ServesTheConsoleSameOriginAndTheWidgetToAnyOrigin) {
  const auto page = client().Get("/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/console/app.js"), std::string::npos);
  EXPECT_NE(page.raw_headers.find("Content-Security-Policy: default-src 'self'"),
            std::string::npos);
  EXPECT_EQ(page.raw_headers.find("Access-Control-Allow-Origin"), std::string::npos);
  EXPECT_EQ(client().Get("/console/index.html").body, page.body);

  const auto bell = client().Get("/widget/chopar-bell.js");
  ASSERT_EQ(bell.status, 200);
  EXPECT_EQ(bell.content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(bell.body.find("customElements.define(\"chopar-bell\""), std::string::npos);
  EXPECT_NE(bell.raw_headers.find("Access-Control-Allow-Origin: *"), std::string::npos);
  EXPECT_EQ(client().Get("/widget/chopar-sw.js").status, 200);
  EXPECT_EQ(client().Get("/widget/missing.js").status, 404);
}

TEST_F(ConsoleRoutesTest, ServesTheApiReferenceWithoutAuthUnderAPolicyOfItsOwnOrigin) {
  const auto page = client().Get("/docs");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<rapi-doc"), std::string::npos);
  EXPECT_NE(page.body.find("spec-url=\"/openapi.yaml\""), std::string::npos);
  EXPECT_NE(
      page.raw_headers.find("Content-Security-Policy: default-src 'none'; script-src 'self';"),
      std::string::npos);
  EXPECT_NE(page.raw_headers.find("X-Frame-Options: DENY"), std::string::npos);
  EXPECT_EQ(page.raw_headers.find("Access-Control-Allow-Origin"), std::string::npos);
  EXPECT_EQ(client().Get("/docs/index.html").body, page.body);

  const auto bundle = client().Get("/docs/rapidoc-min.js");
  ASSERT_EQ(bundle.status, 200);
  EXPECT_EQ(bundle.content_type, "text/javascript; charset=utf-8");
  EXPECT_GT(bundle.body.size(), 500'000u);
  EXPECT_TRUE(bundle.body.starts_with("/*! RapiDoc "));
  // A trailing slash is a different path, as everywhere in the router.
  EXPECT_EQ(client().Get("/docs/").status, 404);
}

}  // namespace
}  // namespace chopar::http::testing
