#include "hub/notification_content.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"

namespace chopar::hub {
namespace {

using core::ChannelKind;
using nlohmann::json;

// Built on first use: parsing needs the Mustache engine's own statics,
// which are not yet set while globals are being initialised.
const templates::Template& TaskTemplate() {
  static const templates::Template parsed = templates::ParseTemplate(
      "task.due",
      {{"category", "tasks"},
       {"default_locale", "en"},
       {"locales",
        {{"en",
          {{"title", "Due: {{task.title}}"},
           {"body", "At {{task.due}}"},
           {"email", {{"subject", "S {{task.title}}"}, {"html", "<p>{{task.title}}</p>"}}},
           {"telegram", {{"text", "<b>{{task.title}}</b>"}}},
           {"push", {{"title", "P {{task.title}}"}, {"body", "PB"}}},
           {"sms", {{"text", "{{#items}}{{.}}{{/items}}"}}}}},
         {"uz", {{"title", "Muddat: {{task.title}}"}}}}}});
  return parsed;
}

const std::vector<ChannelKind> kAll(core::AllChannels().begin(), core::AllChannels().end());

NotificationRequest Request() {
  NotificationRequest r;
  r.user_id = 1;
  r.type = "task.due";
  return r;
}

json Context(json task) { return {{"task", std::move(task)}}; }

TEST(NotificationContent, RendersTheUsersLocaleAndTheChosenChannelsOnly) {
  const auto content =
      ComposeContent(Request(), &TaskTemplate(), "en-GB", Context({{"title", "T"}, {"due", "18"}}),
                     {ChannelKind::kEmail, ChannelKind::kSms});
  EXPECT_EQ(content.title, "Due: T");
  EXPECT_EQ(content.body, "At 18");
  EXPECT_EQ(content.channels,
            json({{"email", {{"subject", "S T"}, {"html", "<p>T</p>"}}}, {"sms", {{"text", ""}}}}));

  const auto uzbek =
      ComposeContent(Request(), &TaskTemplate(), "uz-Cyrl", Context({{"title", "T"}}), kAll);
  EXPECT_EQ(uzbek.title, "Muddat: T");
  EXPECT_EQ(uzbek.body, "") << "the uz block has no body";
  EXPECT_EQ(uzbek.channels, nullptr) << "nor channel blocks: every channel uses title and body";
}

TEST(NotificationContent, TheRequestsTitleAndBodyWinWhereTheyShow) {
  NotificationRequest titled = Request();
  titled.title = "Own title";
  const auto a = ComposeContent(titled, &TaskTemplate(), "en", Context({{"title", "T"}}), kAll);
  EXPECT_EQ(a.title, "Own title");
  EXPECT_EQ(a.body, "At ");
  EXPECT_EQ(a.channels, json({{"email", {{"html", "<p>T</p>"}}}, {"push", {{"body", "PB"}}}}))
      << "subject, push title, telegram and sms texts give way to the request's title";

  NotificationRequest bodied = Request();
  bodied.body = "Own body";
  const auto b = ComposeContent(bodied, &TaskTemplate(), "en", Context({{"title", "T"}}), kAll);
  EXPECT_EQ(b.title, "Due: T");
  EXPECT_EQ(b.body, "Own body");
  EXPECT_EQ(b.channels, json({{"email", {{"subject", "S T"}}}, {"push", {{"title", "P T"}}}}));
}

TEST(NotificationContent, WithoutTemplateTheTitleIsRequired) {
  try {
    (void)ComposeContent(Request(), nullptr, "en", json::object(), kAll);
    FAIL();
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.field(), "title");
  }
  NotificationRequest titled = Request();
  titled.title = "T";
  titled.body = "B";
  const auto content = ComposeContent(titled, nullptr, "en", json::object(), kAll);
  EXPECT_EQ(content.title, "T");
  EXPECT_EQ(content.channels, nullptr);
}

TEST(NotificationContent, AnEmptyRenderedTitleRefusesTheNotification) {
  const templates::Template bare = templates::ParseTemplate(
      "task.due", {{"default_locale", "en"}, {"locales", {{"en", {{"title", "{{task.title}}"}}}}}});
  try {
    (void)ComposeContent(Request(), &bare, "en", json::object(), kAll);
    FAIL();
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.field(), "data");
  }
}

TEST(NotificationContent, AChannelThatCannotRenderFailsAlone) {
  const auto content = ComposeContent(
      Request(), &TaskTemplate(), "en",
      {{"task", {{"title", "T"}}}, {"items", {std::string(1500, 'a'), std::string(600, 'b')}}},
      {ChannelKind::kTelegram, ChannelKind::kSms});
  EXPECT_EQ(content.channels["telegram"], json({{"text", "<b>T</b>"}}));
  EXPECT_EQ(content.channels["sms"], json({{"error",
                                            "template task.due (en): template sms.text rendered "
                                            "2100 bytes, more than the 2000 allowed"}}));
}

TEST(NotificationContent, InAppTextsAreCutToTheirColumns) {
  const auto content = ComposeContent(Request(), &TaskTemplate(), "uz",
                                      Context({{"title", std::string(600, 'x')}}), kAll);
  EXPECT_EQ(CutToCodePoints(content.title, 500), content.title);
  EXPECT_TRUE(content.title.ends_with("…"));
  EXPECT_EQ(CutToCodePoints("o‘zbek", 6), "o‘zbek");
  EXPECT_EQ(CutToCodePoints("o‘zbekcha", 6), "o‘zbe…");
}

}  // namespace
}  // namespace chopar::hub
