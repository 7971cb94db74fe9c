#include "schedule/schedule_spec.hpp"

#include <gtest/gtest.h>

#include "core/time_format.hpp"
#include "schedule/time_zone.hpp"
#include "testing/request_error.hpp"

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

using testing::RequestErrorOf;

// The RequestError a schedule body gets.
core::RequestError ErrorFor(const json& body, std::string_view key = "pill-17") {
  return RequestErrorOf([&] { return ParseScheduleSpec(key, body); });
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
  const core::RequestError e = ErrorFor(body);
  EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField);
  EXPECT_EQ(e.field(), "cron");
  EXPECT_NE(std::string(e.what()).find("hour"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("position 3"), std::string::npos) << e.what();
}

TEST(ScheduleSpecTest, UnknownZoneIsRefused) {
  json body = Body();
  body["timezone"] = "Mars/Olympus";
  const core::RequestError e = ErrorFor(body);
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
  EXPECT_EQ(ErrorFor(json::array()).code(), core::ErrorCode::kInvalidJson);
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

// A PUT /v1/schedules body of `count` valid items keyed k0, k1, …
json BulkBody(int count) {
  json items = json::array();
  for (int i = 0; i < count; ++i) {
    json item = Body();
    item["key"] = "k" + std::to_string(i);
    items.push_back(std::move(item));
  }
  return {{"schedules", std::move(items)}};
}

TEST(ScheduleSpecsTest, ParsesEachItemWithItsOwnKey) {
  const auto specs = ParseScheduleSpecs(BulkBody(3));
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].key, "k0");
  EXPECT_EQ(specs[2].key, "k2");
  EXPECT_EQ(specs[1].user_id, 8);
  EXPECT_EQ(specs[1].pattern, ParseCron("5 18 * * *"));
  EXPECT_TRUE(ParseScheduleSpecs({{"schedules", json::array()}}).empty());
  // Repeated keys are the service's to refuse: it names both items.
  json twice = BulkBody(2);
  twice["schedules"][1]["key"] = "k0";
  EXPECT_EQ(ParseScheduleSpecs(twice).size(), 2u);
}

TEST(ScheduleSpecsTest, NamesTheBadItemByIndex) {
  json body = BulkBody(3);
  body["schedules"][1]["cron"] = "0 9 * * 8";
  core::RequestError e = RequestErrorOf([&] { return ParseScheduleSpecs(body); });
  EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField);
  EXPECT_EQ(e.field(), "schedules[1].cron");
  EXPECT_EQ(std::string(e.what()).rfind("schedules[1]: cron: ", 0), 0u) << e.what();

  body = BulkBody(3);
  body["schedules"][2].erase("key");
  e = RequestErrorOf([&] { return ParseScheduleSpecs(body); });
  EXPECT_EQ(e.field(), "schedules[2].key");
  EXPECT_STREQ(e.what(), "schedules[2]: key is required");

  body = BulkBody(3);
  body["schedules"][0] = 5;
  e = RequestErrorOf([&] { return ParseScheduleSpecs(body); });
  EXPECT_EQ(e.field(), "schedules[0]");
  EXPECT_STREQ(e.what(), "schedules[0]: each schedule must be a JSON object");

  body = BulkBody(1);
  body["schedules"][0]["notification"]["title"] = 7;
  EXPECT_EQ(RequestErrorOf([&] { return ParseScheduleSpecs(body); }).field(),
            "schedules[0].notification.title");
}

TEST(ScheduleSpecsTest, RefusesABodyWithoutASchedulesArray) {
  for (const json& body :
       {json{{"schedule", json::array()}}, json{{"schedules", json::object()}}}) {
    const auto e = RequestErrorOf([&] { return ParseScheduleSpecs(body); });
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << body.dump();
    EXPECT_EQ(e.field(), "schedules") << body.dump();
  }
  EXPECT_EQ(RequestErrorOf([] { return ParseScheduleSpecs(json::array()); }).code(),
            core::ErrorCode::kInvalidJson);
  json items = json::array();
  for (std::size_t i = 0; i <= kMaxBulkSchedules; ++i) items.push_back(nullptr);
  const auto e = RequestErrorOf([&] { return ParseScheduleSpecs({{"schedules", items}}); });
  EXPECT_EQ(e.field(), "schedules");
  EXPECT_STREQ(e.what(), "at most 10000 schedules per request, got 10001");
}

TEST(PreviewRequestTest, ParsesTheApiExampleAndDefaults) {
  const PreviewRequest request = ParsePreviewRequest({{"cron", "30 2 * * *"},
                                                      {"timezone", "Europe/Berlin"},
                                                      {"after", "2027-03-27T00:00:00Z"},
                                                      {"count", 5}});
  EXPECT_EQ(request.pattern, ParseCron("30 2 * * *"));
  EXPECT_EQ(request.zone, FindTimeZone("Europe/Berlin"));
  EXPECT_EQ(request.after, core::ParseRfc3339("2027-03-27T00:00:00Z"));
  EXPECT_EQ(request.count, 5);

  const PreviewRequest defaults = ParsePreviewRequest({{"cron", "@hourly"}, {"after", nullptr}});
  EXPECT_EQ(defaults.zone, FindTimeZone("UTC"));
  EXPECT_EQ(defaults.after, std::nullopt);
  EXPECT_EQ(defaults.count, 10);
}

TEST(PreviewRequestTest, NamesTheBadField) {
  auto error_for = [](const json& body) {
    return RequestErrorOf([&] { return ParsePreviewRequest(body); });
  };
  const auto cron = error_for({{"cron", "61 * * * *"}});
  EXPECT_EQ(cron.code(), core::ErrorCode::kInvalidField);
  EXPECT_EQ(cron.field(), "cron");
  EXPECT_NE(std::string(cron.what()).find("position 1"), std::string::npos) << cron.what();
  EXPECT_EQ(error_for(json::object()).field(), "cron");
  EXPECT_EQ(error_for({{"cron", 5}}).field(), "cron");
  const auto zone = error_for({{"cron", "@daily"}, {"timezone", "Nowhere"}});
  EXPECT_EQ(zone.field(), "timezone");
  EXPECT_NE(std::string(zone.what()).find("Nowhere"), std::string::npos) << zone.what();
  EXPECT_EQ(error_for({{"cron", "@daily"}, {"after", "yesterday"}}).field(), "after");
  for (const json& count : {json(0), json(1001), json("5"), json(2.5)}) {
    const auto e = error_for({{"cron", "@daily"}, {"count", count}});
    EXPECT_EQ(e.field(), "count") << count;
    EXPECT_STREQ(e.what(), "count must be an integer from 1 to 1000");
  }
  EXPECT_EQ(error_for(json::array()).code(), core::ErrorCode::kInvalidJson);
}

}  // namespace
}  // namespace chopar::schedule
