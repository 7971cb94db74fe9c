#include "schedule/schedule_spec.hpp"

#include <gtest/gtest.h>

namespace chopar::schedule {
namespace {

using nlohmann::json;

json Body() {
  return {{"user_id", 8},
          {"cron", "5 18 * * *"},
          {"timezone", nullptr},
          {"notification",
           {{"type", "pill.reminder"},
            {"title", "Sitramon"},
            {"body", "18:00 dori vaqti"},
            {"link", "/pills/17"},
            {"channels", {"push", "telegram"}}}},
          {"catchup", {{"policy", "latest"}, {"window_seconds", 86400}}}};
}

// The ApiError a body gets, or a failure if it is accepted.
core::ApiError ErrorFor(const json& body, std::string_view key = "pill-17") {
  try {
    (void)ParseScheduleSpec(key, body);
  } catch (const core::ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << body.dump();
  return core::ApiError(0, "", "");
}

TEST(ScheduleSpecTest, ParsesTheApiExample) {
  const ScheduleSpec spec = ParseScheduleSpec("pill-17", Body());
  EXPECT_EQ(spec.key, "pill-17");
  EXPECT_EQ(spec.user_id, 8);
  EXPECT_EQ(spec.cron, "5 18 * * *");
  EXPECT_EQ(spec.pattern, ParseCron("5 18 * * *"));
  EXPECT_EQ(spec.timezone, std::nullopt);
  EXPECT_EQ(spec.notification.type, "pill.reminder");
  EXPECT_EQ(spec.notification.title, "Sitramon");
  EXPECT_EQ(spec.notification.body, "18:00 dori vaqti");
  EXPECT_EQ(spec.notification.link, "/pills/17");
  EXPECT_EQ(
      spec.notification.channels,
      (std::vector<core::ChannelKind>{core::ChannelKind::kPush, core::ChannelKind::kTelegram}));
  EXPECT_EQ(spec.catchup_policy, CatchupPolicy::kLatest);
  EXPECT_EQ(spec.catchup_window, std::chrono::seconds(86400));
  EXPECT_TRUE(spec.enabled);
}

TEST(ScheduleSpecTest, DefaultsWhenOptionalPartsAreAbsent) {
  const ScheduleSpec spec = ParseScheduleSpec(
      "a",
      {{"user_id", 1}, {"cron", "  @daily "}, {"notification", {{"type", "x"}, {"title", "T"}}}});
  EXPECT_EQ(spec.cron, "@daily");
  EXPECT_EQ(spec.notification.channels, std::nullopt);
  EXPECT_EQ(spec.notification.data, json::object());
  EXPECT_EQ(spec.catchup_policy, CatchupPolicy::kLatest);
  EXPECT_EQ(spec.catchup_window, kDefaultCatchupWindow);
  EXPECT_TRUE(spec.enabled);
}

TEST(ScheduleSpecTest, ExplicitZoneAndPolicy) {
  json body = Body();
  body["timezone"] = "Asia/Tashkent";
  body["catchup"] = {{"policy", "all"}, {"window_seconds", 600}};
  body["enabled"] = false;
  const ScheduleSpec spec = ParseScheduleSpec("pill-17", body);
  EXPECT_EQ(spec.timezone, "Asia/Tashkent");
  EXPECT_EQ(spec.catchup_policy, CatchupPolicy::kAll);
  EXPECT_EQ(spec.catchup_window, std::chrono::seconds(600));
  EXPECT_FALSE(spec.enabled);
}

TEST(ScheduleSpecTest, BadCronNamesTheFieldAndPosition) {
  json body = Body();
  body["cron"] = "5 24 * * *";
  const core::ApiError e = ErrorFor(body);
  EXPECT_EQ(e.status(), 400);
  EXPECT_EQ(e.code(), "invalid_field");
  EXPECT_EQ(e.field(), "cron");
  EXPECT_NE(std::string(e.what()).find("hour"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("position 3"), std::string::npos) << e.what();
}

TEST(ScheduleSpecTest, UnknownZoneIsRefused) {
  json body = Body();
  body["timezone"] = "Mars/Olympus";
  const core::ApiError e = ErrorFor(body);
  EXPECT_EQ(e.field(), "timezone");
  EXPECT_NE(std::string(e.what()).find("Mars/Olympus"), std::string::npos);
}

TEST(ScheduleSpecTest, TemplateIsValidatedLikeANotification) {
  json body = Body();
  body["notification"]["type"] = "Pill Reminder";
  EXPECT_EQ(ErrorFor(body).field(), "notification.type");
  body = Body();
  body["notification"]["link"] = "https://evil.example/";
  EXPECT_EQ(ErrorFor(body).field(), "notification.link");
  body = Body();
  body["notification"]["channels"] = {"pigeon"};
  EXPECT_EQ(ErrorFor(body).field(), "notification.channels");
  body = Body();
  body["notification"].erase("title");
  EXPECT_EQ(ErrorFor(body).field(), "notification.title");
  body = Body();
  body["notification"]["dedup_key"] = "mine";
  EXPECT_EQ(ErrorFor(body).field(), "notification.dedup_key");
  body = Body();
  body.erase("notification");
  EXPECT_EQ(ErrorFor(body).field(), "notification");
}

TEST(ScheduleSpecTest, OtherFieldErrors) {
  json body = Body();
  body.erase("user_id");
  EXPECT_EQ(ErrorFor(body).field(), "user_id");
  body = Body();
  body["catchup"]["policy"] = "sometimes";
  EXPECT_EQ(ErrorFor(body).field(), "catchup.policy");
  body = Body();
  body["catchup"]["window_seconds"] = 0;
  EXPECT_EQ(ErrorFor(body).field(), "catchup.window_seconds");
  body = Body();
  body["timezon"] = "UTC";
  EXPECT_EQ(ErrorFor(body).field(), "timezon");
  body = Body();
  body["key"] = "pill-18";
  EXPECT_EQ(ErrorFor(body).field(), "key");
  EXPECT_EQ(ErrorFor(Body(), "-starts-with-dash").field(), "key");
  EXPECT_EQ(ErrorFor(Body(), "has space").field(), "key");
  EXPECT_EQ(ErrorFor(json::array()).code(), "invalid_json");
}

TEST(ScheduleSpecTest, KeyGrammar) {
  EXPECT_TRUE(IsValidScheduleKey("pill-17"));
  EXPECT_TRUE(IsValidScheduleKey("user:42.daily_report"));
  EXPECT_TRUE(IsValidScheduleKey(std::string(200, 'k')));
  EXPECT_FALSE(IsValidScheduleKey(std::string(201, 'k')));
  EXPECT_FALSE(IsValidScheduleKey(""));
  EXPECT_FALSE(IsValidScheduleKey("a/b"));
  EXPECT_FALSE(IsValidScheduleKey("_a"));
}

TEST(ScheduleSpecTest, PrefixErrorNamesTheItem) {
  const core::ApiError e =
      PrefixError(core::InvalidField("cron", "cron: bad"), "schedules[3].", "schedules[3]");
  EXPECT_EQ(e.field(), "schedules[3].cron");
  EXPECT_STREQ(e.what(), "schedules[3]: cron: bad");
  EXPECT_EQ(e.code(), "invalid_field");
  EXPECT_EQ(e.status(), 400);
}

}  // namespace
}  // namespace chopar::schedule
