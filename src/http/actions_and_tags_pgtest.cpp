// Actions and tags on the write path (docs/api.md "Actions and tags"):
// what POST /v1/notifications and its batch accept, store and show, and
// what they refuse without writing anything.
#include <gtest/gtest.h>

#include <barrier>
#include <set>
#include <thread>
#include <tuple>

#include "broadcast/broadcast_service.hpp"
#include "broadcast/fan_out.hpp"
#include "broadcast/topic_service.hpp"
#include "http/broadcast_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/template_routes.hpp"
#include "templates/template_store.hpp"
#include "workflow/engine/releaser.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

class ActionsAndTagsTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    templates_ = std::make_unique<templates::TemplateStore>(*pool_, db_->url());
    templates_->Start();
    notify_ = std::make_unique<hub::NotifyService>(*pool_, clock_, metrics_, templates_.get());
    topics_ = std::make_unique<broadcast::TopicService>(*pool_);
    broadcasts_ = std::make_unique<broadcast::BroadcastService>(*pool_, templates_.get());
    StartServer(DefaultSettings());
    PutUser(1, {{"locale", "uz"}});
    PutUser(2, {{"locale", "en"}});
  }

  void AddRoutes(Router& router) override {
    if (!templates_) return;  // the fixture's first server, before SetUp made the store
    RegisterTemplateRoutes(router, *templates_, *users_);
    RegisterBroadcastRoutes(router, *topics_, *broadcasts_);
  }

  void PutTemplate(const std::string& type, const json& body) {
    const auto response = client().Put("/v1/templates/" + type, body.dump(), {kAuth});
    ASSERT_EQ(response.status, 200) << response.body;
  }

  // The notification a POST /v1/broadcasts to every user made for `user`.
  json BroadcastTo(std::int64_t user, const json& notification) {
    const auto started =
        client().Post("/v1/broadcasts",
                      json({{"audience", "all"}, {"notification", notification}}).dump(), {kAuth});
    EXPECT_EQ(started.status, 202) << started.body;
    broadcast::FanOut fan_out(*pool_, clock_, metrics_, {}, templates_.get());
    fan_out.RunOnce();
    const auto inbox =
        client().Get("/v1/users/" + std::to_string(user) + "/notifications", {kAuth});
    EXPECT_EQ(inbox.status, 200) << inbox.body;
    return inbox.Json()["items"][0];
  }

  std::unique_ptr<templates::TemplateStore> templates_;
  std::unique_ptr<broadcast::TopicService> topics_;
  std::unique_ptr<broadcast::BroadcastService> broadcasts_;

  json Shown(std::int64_t id) {
    const auto response = client().Get("/v1/notifications/" + std::to_string(id), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json();
  }
};

TEST_F(ActionsAndTagsTest, ANotificationKeepsItsActionsAndTags) {
  const json actions = {{{"label", "Ochish"}, {"url", "/invites/7"}},
                        {{"label", "Qabul qilish"}, {"event", "invite.accept"}}};
  const auto response = Notify(1, {{"actions", actions}, {"tags", {"billing", "project:42"}}});
  ASSERT_EQ(response.status, 201) << response.body;
  const json shown = Shown(response.Json()["id"].get<std::int64_t>());
  EXPECT_EQ(shown["actions"], actions) << shown;
  EXPECT_EQ(shown["tags"], json({"billing", "project:42"})) << shown;

  const auto inbox = client().Get("/v1/inbox/notifications", {"Authorization: Bearer " + Token(1)});
  ASSERT_EQ(inbox.status, 200) << inbox.body;
  EXPECT_EQ(inbox.Json()["items"][0]["actions"], actions) << inbox.body;
  EXPECT_EQ(inbox.Json()["items"][0]["tags"], json({"billing", "project:42"})) << inbox.body;
}

TEST_F(ActionsAndTagsTest, WithoutThemANotificationShowsEmptyLists) {
  const auto response = Notify(1);
  ASSERT_EQ(response.status, 201) << response.body;
  const json shown = Shown(response.Json()["id"].get<std::int64_t>());
  EXPECT_EQ(shown["actions"], json::array());
  EXPECT_EQ(shown["tags"], json::array());
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE actions IS NULL AND tags "
                       "IS NULL"),
            1);
}

TEST_F(ActionsAndTagsTest, BadActionsAndTagsAreRefusedByFieldAndWriteNothing) {
  const json open = {{"label", "Ochish"}, {"url", "/a"}};
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"actions", json::array()}}, "actions"},
      {{{"actions", {open, open, open}}}, "actions"},
      {{{"actions", {{"label", "x"}}}}, "actions"},
      {{{"actions", json::object()}}, "actions"},
      {{{"actions", {1}}}, "actions[0]"},
      {{{"actions", {open, {{"label", "Go"}, {"url", "https://evil.example/"}}}}},
       "actions[1].url"},
      {{{"actions", {open, {{"label", "Go"}, {"url", "//evil.example/"}}}}}, "actions[1].url"},
      {{{"actions", {{{"label", "Go"}, {"url", "/a"}, {"event", "a.b"}}}}}, "actions[0]"},
      {{{"actions", {{{"label", "Go"}}}}}, "actions[0]"},
      {{{"actions", {{{"label", ""}, {"url", "/a"}}}}}, "actions[0].label"},
      {{{"actions", {{{"label", std::string(101, 'x')}, {"url", "/a"}}}}}, "actions[0].label"},
      {{{"actions", {{{"url", "/a"}}}}}, "actions[0].label"},
      {{{"actions", {{{"label", 5}, {"url", "/a"}}}}}, "actions[0].label"},
      {{{"actions", {{{"label", "Go"}, {"event", "Invite.Accept"}}}}}, "actions[0].event"},
      {{{"actions", {{{"label", "Go"}, {"event", std::string(101, 'a')}}}}}, "actions[0].event"},
      {{{"actions", {{{"label", "Go"}, {"event", "a.b"}, {"style", "primary"}}}}},
       "actions[0].style"},
      {{{"tags", "billing"}}, "tags"},
      {{{"tags", json::array({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"})}}, "tags"},
      {{{"tags", {"billing", "Billing"}}}, "tags[1]"},
      {{{"tags", {"billing", "billing"}}}, "tags[1]"},
      {{{"tags", {"a,b"}}}, "tags[0]"},
      {{{"tags", {std::string(51, 'a')}}}, "tags[0]"},
      {{{"tags", {7}}}, "tags[0]"},
  };
  for (const auto& [extra, field] : cases) {
    SCOPED_TRACE(extra.dump());
    const auto response = Notify(1, extra);
    EXPECT_EQ(response.status, 400) << response.body;
    EXPECT_EQ(response.ErrorCode(), "invalid_field") << response.body;
    EXPECT_EQ(response.Json()["error"]["field"], field) << response.body;
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 0);
}

TEST_F(ActionsAndTagsTest, ABatchRefusesTheBadItemAloneAndKeepsTheOthersActions) {
  const json accept = {{{"label", "Qabul"}, {"event", "invite.accept"}}};
  const json batch = {
      {"notifications",
       {{{"user_id", 1}, {"type", "invite.sent"}, {"title", "Taklif"}, {"actions", accept}},
        {{"user_id", 1}, {"type", "invite.sent"}, {"title", "Taklif"}, {"tags", {"Bad"}}},
        {{"user_id", 1}, {"type", "invite.sent"}, {"title", "Taklif"}, {"tags", {"team"}}}}}};
  const auto response = client().Post("/v1/notifications/batch", batch.dump(), {kAuth});
  ASSERT_EQ(response.status, 200) << response.body;
  const json results = response.Json()["results"];
  ASSERT_EQ(results.size(), 3u) << response.body;
  EXPECT_EQ(results[1]["error"]["field"], "tags[0]") << response.body;
  EXPECT_EQ(Shown(results[0]["id"].get<std::int64_t>())["actions"], accept);
  EXPECT_EQ(Shown(results[0]["id"].get<std::int64_t>())["tags"], json::array());
  EXPECT_EQ(Shown(results[2]["id"].get<std::int64_t>())["tags"], json({"team"}));
  EXPECT_EQ(Shown(results[2]["id"].get<std::int64_t>())["actions"], json::array());
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 2);
}

// An invitation with localized buttons: "Accept" and a link to it.
json InviteTemplate() {
  return {{"default_locale", "en"},
          {"tags", {"invites"}},
          {"locales",
           {{"en",
             {{"title", "{{who}} invites you"},
              {"actions",
               {{{"label", "Accept {{who}}'s invite"}, {"event", "invite.accept"}},
                {{"label", "Open"}, {"url", "/invites/{{invite_id}}"}}}}}},
            {"uz",
             {{"title", "{{who}} sizni taklif qilmoqda"},
              {"actions",
               {{{"label", "{{who}} taklifini qabul qilish"}, {"event", "invite.accept"}},
                {{"label", "Ochish"}, {"url", "/invites/{{invite_id}}"}}}}}}}}};
}

TEST_F(ActionsAndTagsTest, ATemplatesActionsAreRenderedInTheUsersLocale) {
  PutTemplate("invite.sent", InviteTemplate());
  const json data = {{"who", "Aziza"}, {"invite_id", 9}};
  const auto uz = client().Post(
      "/v1/notifications",
      json({{"user_id", 1}, {"type", "invite.sent"}, {"data", data}, {"tags", {"team"}}}).dump(),
      {kAuth});
  ASSERT_EQ(uz.status, 201) << uz.body;
  const json shown_uz = Shown(uz.Json()["id"].get<std::int64_t>());
  EXPECT_EQ(shown_uz["actions"],
            json({{{"label", "Aziza taklifini qabul qilish"}, {"event", "invite.accept"}},
                  {{"label", "Ochish"}, {"url", "/invites/9"}}}))
      << shown_uz;
  EXPECT_EQ(shown_uz["tags"], json({"invites", "team"})) << "the template's tags, then its own";

  const auto en = client().Post(
      "/v1/notifications", json({{"user_id", 2}, {"type", "invite.sent"}, {"data", data}}).dump(),
      {kAuth});
  ASSERT_EQ(en.status, 201) << en.body;
  const json shown_en = Shown(en.Json()["id"].get<std::int64_t>());
  EXPECT_EQ(shown_en["actions"][0]["label"], "Accept Aziza's invite") << shown_en;
  EXPECT_EQ(shown_en["tags"], json({"invites"}));
}

TEST_F(ActionsAndTagsTest, ARequestsOwnActionsReplaceTheTemplates) {
  PutTemplate("invite.sent", InviteTemplate());
  const json own = {{{"label", "Ko'rish"}, {"url", "/inbox"}}};
  const auto response = client().Post("/v1/notifications",
                                      json({{"user_id", 1},
                                            {"type", "invite.sent"},
                                            {"data", {{"who", "Aziza"}, {"invite_id", 9}}},
                                            {"actions", own}})
                                          .dump(),
                                      {kAuth});
  ASSERT_EQ(response.status, 201) << response.body;
  EXPECT_EQ(Shown(response.Json()["id"].get<std::int64_t>())["actions"], own);
}

TEST_F(ActionsAndTagsTest, ATemplateActionThatRendersBadIsRefusedAndWritesNothing) {
  json tmpl = InviteTemplate();
  tmpl["locales"]["en"]["actions"][1]["url"] = "/{{target}}";
  PutTemplate("invite.sent", tmpl);
  const auto response = client().Post("/v1/notifications",
                                      json({{"user_id", 2},
                                            {"type", "invite.sent"},
                                            {"data", {{"who", "A"}, {"target", "/evil.example"}}}})
                                          .dump(),
                                      {kAuth});
  EXPECT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(response.Json()["error"]["field"], "data") << response.body;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
}

TEST_F(ActionsAndTagsTest, ATemplateKeepsItsActionsAndTagsAndPreviewsThem) {
  PutTemplate("invite.sent", InviteTemplate());
  const auto stored = client().Get("/v1/templates/invite.sent", {kAuth});
  ASSERT_EQ(stored.status, 200) << stored.body;
  EXPECT_EQ(stored.Json()["locales"]["uz"]["actions"],
            InviteTemplate()["locales"]["uz"]["actions"]);
  EXPECT_EQ(stored.Json()["tags"], json({"invites"}));

  const auto preview = client().Post("/v1/templates/preview",
                                     json({{"type", "invite.sent"},
                                           {"locale", "uz"},
                                           {"data", {{"who", "Aziza"}, {"invite_id", 3}}}})
                                         .dump(),
                                     {kAuth});
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_EQ(preview.Json()["actions"],
            json({{{"label", "Aziza taklifini qabul qilish"}, {"event", "invite.accept"}},
                  {{"label", "Ochish"}, {"url", "/invites/3"}}}))
      << preview.body;
}

TEST_F(ActionsAndTagsTest, BadTemplateActionsAndTagsAreRefusedByField) {
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& t) { t["locales"]["en"]["actions"] = json::array(); }, "locales.en.actions"},
      {[](json& t) { t["locales"]["en"]["actions"][1]["url"] = "https://evil.example"; },
       "locales.en.actions[1].url"},
      {[](json& t) { t["locales"]["en"]["actions"][0]["event"] = "Accept"; },
       "locales.en.actions[0].event"},
      {[](json& t) { t["locales"]["en"]["actions"][0]["url"] = "/x"; }, "locales.en.actions[0]"},
      {[](json& t) { t["locales"]["en"]["actions"][0]["label"] = "{{#x}}"; },
       "locales.en.actions[0].label"},
      {[](json& t) { t["locales"]["en"]["actions"][0]["colour"] = "red"; },
       "locales.en.actions[0].colour"},
      {[](json& t) {
         t["tags"] = {"ok", "ok"};
       },
       "tags[1]"},
      {[](json& t) { t["tags"] = "ok"; }, "tags"},
  };
  for (const auto& [change, field] : cases) {
    json tmpl = InviteTemplate();
    change(tmpl);
    SCOPED_TRACE(tmpl.dump());
    const auto response = client().Put("/v1/templates/invite.sent", tmpl.dump(), {kAuth});
    EXPECT_EQ(response.status, 400) << response.body;
    EXPECT_EQ(response.Json()["error"]["field"], field) << response.body;
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.templates"), 0);
}

TEST_F(ActionsAndTagsTest, ADelayedNotificationCarriesItsActionsAndTagsWhenReleased) {
  const json actions = {{{"label", "Qabul qilish"}, {"event", "invite.accept"}}};
  const auto created =
      Notify(1, {{"delay_seconds", 3600}, {"actions", actions}, {"tags", {"invites"}}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(db_->Count("SELECT request_version FROM chopar.delayed_notifications"), 3);
  db_->Scalar("UPDATE chopar.delayed_notifications SET due_at = now() RETURNING 1");
  workflow::engine::Releaser releaser(*pool_, clock_, metrics_, templates_.get());
  releaser.RunOnce();
  const json shown = Shown(created.Json()["id"].get<std::int64_t>());
  EXPECT_EQ(shown["actions"], actions) << shown;
  EXPECT_EQ(shown["tags"], json({"invites"})) << shown;
}

TEST_F(ActionsAndTagsTest, ABroadcastsNotificationCarriesItsActionsAndTags) {
  const json actions = {{{"label", "O'qish"}, {"url", "/news/3"}}};
  const json shown = BroadcastTo(
      2, {{"type", "news.post"}, {"title", "Yangilik"}, {"actions", actions}, {"tags", {"news"}}});
  EXPECT_EQ(shown["actions"], actions) << shown;
  EXPECT_EQ(shown["tags"], json({"news"})) << shown;

  const auto bad = client().Post(
      "/v1/broadcasts",
      json({{"audience", "all"},
            {"notification", {{"type", "news.post"}, {"title", "x"}, {"tags", {"News"}}}}})
          .dump(),
      {kAuth});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(bad.Json()["error"]["field"], "notification.tags[0]") << bad.body;
}

TEST_F(ActionsAndTagsTest, ABroadcastOfATemplatedTypeRendersItsActionsForEachRecipient) {
  PutTemplate("invite.sent", InviteTemplate());
  const json shown = BroadcastTo(1, {{"type", "invite.sent"},
                                     {"data", {{"who", "Aziza"}, {"invite_id", 4}}},
                                     {"tags", {"team"}}});
  EXPECT_EQ(shown["actions"][0]["label"], "Aziza taklifini qabul qilish") << shown;
  EXPECT_EQ(shown["actions"][1]["url"], "/invites/4") << shown;
  EXPECT_EQ(shown["tags"], json({"invites", "team"})) << shown;
}

// A notification of user 1 with a link and an event action; its id.
std::int64_t NotifyInvite(HttpClient& client) {
  const auto response =
      client.Post("/v1/notifications",
                  json({{"user_id", 1},
                        {"type", "invite.sent"},
                        {"title", "Taklif"},
                        {"actions",
                         {{{"label", "Ochish"}, {"url", "/invites/7"}},
                          {{"label", "Qabul qilish"}, {"event", "invite.accept"}}}}})
                      .dump(),
                  {kAuth});
  EXPECT_EQ(response.status, 201) << response.body;
  return response.Json()["id"].get<std::int64_t>();
}

std::string Press(std::int64_t id, int n) {
  return "/v1/inbox/notifications/" + std::to_string(id) + "/actions/" + std::to_string(n);
}

TEST_F(ActionsAndTagsTest, PressingAnEventActionRecordsItOnceReadsTheNotificationAndTellsTheApp) {
  const std::int64_t id = NotifyInvite(client());
  const std::string token = "Authorization: Bearer " + Token(1);
  const auto first = client().Post(Press(id, 1), "", {token});
  ASSERT_EQ(first.status, 200) << first.body;
  const json pressed = first.Json();
  EXPECT_EQ(pressed["notification_id"], id);
  EXPECT_EQ(pressed["action"], 1);
  EXPECT_EQ(pressed["event"], "invite.accept");
  EXPECT_EQ(pressed["recorded"], true);
  ASSERT_TRUE(pressed["pressed_at"].is_string()) << first.body;

  const json shown = Shown(id);
  EXPECT_EQ(shown["actions"][1]["pressed_at"], pressed["pressed_at"]) << shown;
  EXPECT_FALSE(shown["actions"][0].contains("pressed_at")) << shown;
  EXPECT_TRUE(shown["read_at"].is_string()) << shown;
  EXPECT_TRUE(shown["seen_at"].is_string()) << shown;

  // The event is written whatever [events] emit says (this process emits none).
  ASSERT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox WHERE type = 'notification.action'"), 1);
  const json event = json::parse(
      db_->Scalar("SELECT payload::text FROM chopar.outbox WHERE type = 'notification.action'"));
  EXPECT_EQ(event["notification_id"], id);
  EXPECT_EQ(event["user_id"], 1);
  EXPECT_EQ(event["action"], 1);
  EXPECT_EQ(event["event"], "invite.accept");
  EXPECT_EQ(event["label"], "Qabul qilish");
  EXPECT_EQ(event["pressed_at"], pressed["pressed_at"]);
  EXPECT_EQ(event["notification"]["id"], id);
  EXPECT_EQ(event["notification"]["actions"][1]["pressed_at"], pressed["pressed_at"]);
  EXPECT_TRUE(event["notification"]["read_at"].is_string()) << event;

  const auto again = client().Post(Press(id, 1), "", {token});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["recorded"], false);
  EXPECT_EQ(again.Json()["pressed_at"], pressed["pressed_at"]);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox"), 1) << "a repeat writes nothing";
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notification_actions"), 1);
}

TEST_F(ActionsAndTagsTest, APressReadsTheNotificationOnTheUsersOpenStreams) {
  const std::int64_t id = NotifyInvite(client());
  SseGroup streams(server_->port());
  const int s = streams.Open("/v1/inbox/stream?token=" + Token(1));
  const auto named = [&](const std::string& name) {
    std::vector<json> found;
    for (const SseEvent& e : streams.Events(s)) {
      if (e.event == name) found.push_back(json::parse(e.data));
    }
    return found;
  };
  ASSERT_TRUE(streams.RunUntil([&] { return !named("counts").empty(); })) << streams.Received(s);
  ASSERT_EQ(client().Post(Press(id, 1), "", {"Authorization: Bearer " + Token(1)}).status, 200);
  ASSERT_TRUE(streams.RunUntil([&] { return !named("state").empty(); })) << streams.Received(s);
  const json state = named("state").front();
  EXPECT_EQ(state["change"], "read") << state;
  EXPECT_EQ(state["ids"], json({id})) << state;
  ASSERT_TRUE(streams.RunUntil([&] {
    const auto counts = named("counts");
    return counts.back()["unread"] == 0 && counts.back()["unseen"] == 0;
  })) << streams.Received(s);
}

TEST_F(ActionsAndTagsTest, PressingWhatIsNotAnEventActionOfTheUsersNotificationIsRefused) {
  const std::int64_t id = NotifyInvite(client());
  const std::string own = "Authorization: Bearer " + Token(1);
  const std::string other = "Authorization: Bearer " + Token(2);
  const std::string path_n = "/v1/inbox/notifications/" + std::to_string(id) + "/actions/";
  const std::vector<std::tuple<std::string, std::string, int, std::string>> cases = {
      {path_n + "1", other, 404, "not_found"},
      {"/v1/inbox/notifications/999999/actions/1", own, 404, "not_found"},
      {path_n + "2", own, 400, "invalid_field"},
      {path_n + "5", own, 400, "invalid_field"},
      {path_n + "x", own, 400, "invalid_field"},
      {path_n + "-1", own, 400, "invalid_field"},
      {path_n + "01", own, 400, "invalid_field"},
      {path_n + "0", own, 409, "conflict"},
      {path_n + "1", "", 401, "unauthorized"},
  };
  for (const auto& [path, auth, status, code] : cases) {
    SCOPED_TRACE(path + " " + auth);
    const auto response =
        client().Post(path, "", auth.empty() ? std::vector<std::string>{} : std::vector{auth});
    EXPECT_EQ(response.status, status) << response.body;
    EXPECT_EQ(response.ErrorCode(), code) << response.body;
    if (status == 400) {
      EXPECT_EQ(response.Json()["error"]["field"], "n") << response.body;
    }
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notification_actions"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox"), 0);
  EXPECT_TRUE(Shown(id)["read_at"].is_null());

  const auto plain = Notify(1);
  const auto no_actions =
      client().Post(Press(plain.Json()["id"].get<std::int64_t>(), 0), "", {own});
  EXPECT_EQ(no_actions.status, 400) << no_actions.body;
}

TEST_F(ActionsAndTagsTest, TheApplicationPressesForItsUserOnceToo) {
  const std::int64_t id = NotifyInvite(client());
  const std::string path = "/v1/users/1/notifications/" + std::to_string(id) + "/actions/";
  const auto first = client().Post(path + "1", "", {kAuth});
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.Json()["recorded"], true);
  const auto from_inbox = client().Post(Press(id, 1), "", {"Authorization: Bearer " + Token(1)});
  ASSERT_EQ(from_inbox.status, 200) << from_inbox.body;
  EXPECT_EQ(from_inbox.Json()["recorded"], false) << "the same press, once";
  EXPECT_EQ(from_inbox.Json()["pressed_at"], first.Json()["pressed_at"]);
  EXPECT_EQ(client()
                .Post("/v1/users/2/notifications/" + std::to_string(id) + "/actions/1", "", {kAuth})
                .status,
            404);
  EXPECT_EQ(client().Post(path + "0", "", {kAuth}).status, 409);
  EXPECT_EQ(client().Post(path + "1", "", {}).status, 401);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox WHERE type = 'notification.action'"), 1);
}

TEST_F(ActionsAndTagsTest, ThreadsPressingAtOnceRecordOnePressAndOneEvent) {
  constexpr int kThreads = 8;
  const std::int64_t id = NotifyInvite(client());
  const std::string token = "Authorization: Bearer " + Token(1);
  std::barrier start(kThreads);
  std::vector<HttpResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      HttpClient own_client(server_->port());
      start.arrive_and_wait();
      results[static_cast<std::size_t>(i)] = own_client.Post(Press(id, 1), "", {token});
    });
  }
  for (auto& thread : threads) thread.join();
  int recorded = 0;
  std::set<std::string> times;
  for (const HttpResult& result : results) {
    ASSERT_EQ(result.status, 200) << result.body;
    recorded += result.Json()["recorded"].get<bool>() ? 1 : 0;
    times.insert(result.Json()["pressed_at"].get<std::string>());
  }
  EXPECT_EQ(recorded, 1);
  EXPECT_EQ(times.size(), 1u) << "every answer gives the first press's time";
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox WHERE type = 'notification.action'"), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notification_actions"), 1);
}

}  // namespace
}  // namespace chopar::http::testing
