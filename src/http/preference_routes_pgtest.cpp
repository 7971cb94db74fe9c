// What users, their tokens and their signed links may write: preferences
// only of the documented shape and within their bounds, on every route that
// writes them (the server key's PUT /v1/users/{id}, the token's PUT
// /v1/inbox/preferences, the signed settings page), with the database's
// CHECK as the last layer; a push endpoint of another user is not taken by a
// token; and the pages of signed links cannot be framed. Every refusal
// changes nothing.

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "channels/unsubscribe.hpp"
#include "db/errors.hpp"
#include "http/console_routes.hpp"
#include "http/http_server_fixture.hpp"
#include "http/preference_routes.hpp"
#include "templates/template_store.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;
using testing::HttpResult;
using testing::kAuth;
using testing::kInboxSecret;
using testing::kP256dh;
using testing::kPushAuth;

class PreferenceRoutesTest : public testing::HttpServerPgTest {
 protected:
  void AddRoutes(Router& router) override {
    templates_ = std::make_unique<templates::TemplateStore>(*pool_, db_->url());
    templates_->Start();
    RegisterPreferenceRoutes(router, *users_, *templates_, kInboxSecret);
    RegisterConsoleRoutes(router, *pool_, *users_, "");
  }

  static std::vector<std::string> TokenHeaders(std::int64_t user_id) {
    return {"Authorization: Bearer " + Token(user_id), "Content-Type: application/json"};
  }

  json Stored(std::int64_t user_id) {
    return json::parse(db_->Scalar("SELECT preferences::text FROM chopar.users WHERE id = " +
                                   std::to_string(user_id)));
  }

  // The field of a 400 answer, or the status and body when it is not one.
  static std::string RefusedField(const HttpResult& answer) {
    if (answer.status != 400) return std::to_string(answer.status) + " " + answer.body;
    return answer.Json()["error"]["field"].get<std::string>();
  }

  // `count` categories, each {"email": false}, named "c" + letters.
  static json Categories(int count, std::size_t name_length = 4) {
    json categories = json::object();
    for (int i = 0; i < count; ++i) {
      std::string name = "c";
      for (int n = i; name.size() < name_length; n /= 26) name += static_cast<char>('a' + n % 26);
      categories[name] = {{"email", false}};
    }
    return categories;
  }

  static std::string PageLink(std::int64_t user_id) {
    return "/v1/unsubscribe/preferences?user=" + std::to_string(user_id) + "&sig=" +
           channels::SignUnsubscribe(kInboxSecret, user_id, {"preferences", "all"},
                                     core::ChannelKind::kEmail);
  }

  std::unique_ptr<templates::TemplateStore> templates_;
};

const json kKept = {{"email", true}, {"categories", {{"tasks", false}}}};

TEST_F(PreferenceRoutesTest, InboxPreferencesRefuseAJunkKeyAndANonBooleanAndKeepTheRow) {
  PutUser(1, {{"preferences", kKept}});
  const auto put = [&](const json& body) {
    return client().Put("/v1/inbox/preferences", body.dump(), TokenHeaders(1));
  };
  EXPECT_EQ(RefusedField(put({{"junk1", std::string(900 * 1024, 'x')}})), "junk1");
  EXPECT_EQ(RefusedField(put({{"email", "not-a-boolean"}})), "email");
  EXPECT_EQ(RefusedField(put({{"junk1", "x"}, {"email", true}})), "junk1");
  EXPECT_EQ(RefusedField(put({{"types", {{"task.due", {{"email", "no"}}}}}})),
            "types.task.due.email");
  EXPECT_EQ(Stored(1), kKept) << "nothing was written";

  const auto cleared = put({{"junk1", nullptr}, {"sms", true}});
  ASSERT_EQ(cleared.status, 200) << cleared.body << " (a null removes any key)";
  EXPECT_EQ(Stored(1), json({{"email", true}, {"sms", true}, {"categories", {{"tasks", false}}}}));
}

TEST_F(PreferenceRoutesTest, InboxPreferencesRefuseTooManyCategoriesOrTooManyBytes) {
  PutUser(1, {{"preferences", kKept}});
  const auto put = [&](const json& body) {
    return client().Put("/v1/inbox/preferences", body.dump(), TokenHeaders(1));
  };
  EXPECT_EQ(RefusedField(put({{"categories", Categories(101)}})), "categories");
  EXPECT_EQ(RefusedField(put({{"types", Categories(101)}})), "types");
  EXPECT_EQ(Stored(1), kKept);

  // Each within the bounds alone (about 10 KiB), too big together once merged.
  const json wide = Categories(100, 80);
  ASSERT_EQ(put({{"categories", wide}}).status, 200);
  const auto merged = put({{"types", Categories(100, 80)}});
  EXPECT_EQ(RefusedField(merged), "preferences");
  EXPECT_NE(merged.body.find("more than the 16384 allowed"), std::string::npos) << merged.body;
  EXPECT_EQ(Stored(1), json({{"email", true}, {"categories", wide}}));
}

TEST_F(PreferenceRoutesTest, PutUserRefusesBadPreferencesAndKeepsTheRow) {
  PutUser(1, {{"email", "a@example.uz"}, {"preferences", kKept}});
  const auto put = [&](const json& preferences) {
    return client().Put("/v1/users/1", json({{"preferences", preferences}}).dump(), {kAuth});
  };
  EXPECT_EQ(RefusedField(put({{"junk1", std::string(100 * 1024, 'x')}})), "preferences.junk1");
  EXPECT_EQ(RefusedField(put({{"email", "not-a-boolean"}})), "preferences.email");
  EXPECT_EQ(RefusedField(put({{"categories", Categories(101)}})), "preferences.categories");
  ASSERT_EQ(put({{"categories", Categories(100, 80)}}).status, 200);
  EXPECT_EQ(RefusedField(put({{"types", Categories(100, 80)}})), "preferences");
  EXPECT_EQ(Stored(1), json({{"email", true}, {"categories", Categories(100, 80)}}));
}

// The settings page saves the categories it shows (the templates' and the
// user's own): a form naming others cannot grow the row.
TEST_F(PreferenceRoutesTest, PreferencesPageSavesOnlyTheCategoriesItShows) {
  PutUser(1, {{"email", "a@example.uz"}, {"preferences", kKept}});
  std::string form = "shown=tasks&tasks.email=on";
  for (int i = 0; i < 300; ++i) {
    const std::string name = std::string("junk.x") + static_cast<char>('a' + i % 26) +
                             static_cast<char>('a' + i / 26);
    form += "&shown=" + name + "&" + name + ".email=on";
  }
  const auto saved =
      client().Post(PageLink(1), form, {"Content-Type: application/x-www-form-urlencoded"});
  ASSERT_EQ(saved.status, 200) << saved.body;
  EXPECT_EQ(Stored(1),
            json({{"email", true}, {"categories", {{"tasks", {{"telegram", false}, {"push", false}}}}}}))
      << "tasks saved as shown; no other category";
}

// Below the API's checks: a row over the bound is refused by the database.
TEST_F(PreferenceRoutesTest, DatabaseRefusesPreferencesOverTheBound) {
  PutUser(1, {{"preferences", kKept}});
  EXPECT_THROW(db_->Scalar("UPDATE chopar.users SET preferences = jsonb_build_object('junk', "
                           "repeat('x', 40000)) WHERE id = 1"),
               db::CheckViolation);
  EXPECT_EQ(Stored(1), kKept);
}

TEST_F(PreferenceRoutesTest, TokenCannotTakeAnotherUsersPushEndpoint) {
  PutUser(1, {{"email", "a@example.uz"}});
  PutUser(2, {{"email", "b@example.uz"}});
  const std::string body =
      json({{"endpoint", "https://push.example/e1"},
            {"keys", {{"p256dh", kP256dh}, {"auth", kPushAuth}}}})
          .dump();
  const auto mine = client().Post("/v1/inbox/push-subscriptions", body, TokenHeaders(1));
  ASSERT_EQ(mine.status, 201) << mine.body;
  const auto owner = [&] {
    return db_->Scalar(
        "SELECT user_id FROM chopar.push_subscriptions WHERE endpoint = "
        "'https://push.example/e1'");
  };

  const auto taken = client().Post("/v1/inbox/push-subscriptions", body, TokenHeaders(2));
  EXPECT_EQ(taken.status, 409) << taken.body;
  EXPECT_EQ(taken.ErrorCode(), "conflict");
  EXPECT_NE(taken.body.find("another user"), std::string::npos) << taken.body;
  EXPECT_EQ(owner(), "1") << "the endpoint stays user 1's";
  EXPECT_EQ(client().Post("/v1/inbox/push-subscriptions", body, TokenHeaders(1)).status, 200)
      << "its own user may send it again";

  const auto moved = client().Post("/v1/users/2/push-subscriptions", body,
                                   {kAuth, "Content-Type: application/json"});
  EXPECT_EQ(moved.status, 200) << moved.body;
  EXPECT_EQ(owner(), "2") << "the server key moves it";
}

TEST_F(PreferenceRoutesTest, SignedLinkPagesCannotBeFramed) {
  PutUser(1, {{"email", "a@example.uz"}});
  const std::string unsubscribe =
      "/v1/unsubscribe?user=1&category=tasks&channel=email&sig=" +
      channels::SignUnsubscribe(kInboxSecret, 1, {"category", "tasks"}, core::ChannelKind::kEmail);
  const std::vector<std::pair<std::string, HttpResult>> pages = {
      {"GET unsubscribe", client().Get(unsubscribe)},
      {"POST unsubscribe",
       client().Post(unsubscribe, "List-Unsubscribe=One-Click",
                     {"Content-Type: application/x-www-form-urlencoded"})},
      {"GET settings", client().Get(PageLink(1))},
      {"POST settings", client().Post(PageLink(1), "shown=tasks",
                                      {"Content-Type: application/x-www-form-urlencoded"})},
      {"refused", client().Get("/v1/unsubscribe?user=1&category=tasks&channel=email&sig=x")}};
  for (const auto& [name, page] : pages) {
    SCOPED_TRACE(name);
    EXPECT_EQ(page.status, name == "refused" ? 403 : 200) << page.body;
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    EXPECT_NE(page.raw_headers.find("Content-Security-Policy: frame-ancestors 'none'\r\n"),
              std::string::npos)
        << page.raw_headers;
    EXPECT_NE(page.raw_headers.find("X-Frame-Options: DENY\r\n"), std::string::npos)
        << page.raw_headers;
  }
}

}  // namespace
}  // namespace chopar::http
