#include "hub/stored_request.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/time_format.hpp"

namespace chopar::hub {
namespace {

using core::ChannelKind;

// Forms exactly as earlier releases stored them (captured from 946804a's
// delayed_notifications.request and broadcasts.notification). Every version
// ever written has its examples here; a new version adds its own and keeps
// these.
constexpr const char* kVersion1Delayed =
    R"({"body": "Hisobot ertaga", "data": {"task_id": 7}, "link": "/tasks/7", "type": "task.due",
        "title": "Vazifa muddati", "user_id": 1, "category": "tasks", "channels": ["email"],
        "critical": true, "dedup_key": "task:7", "cancellation_key": "task-7"})";
constexpr const char* kVersion1DelayedPlain =
    R"({"data": {}, "type": "pill.reminder", "title": "Pill", "user_id": 2,
        "channels": ["email", "telegram", "push", "sms"], "critical": false})";
// A broadcast's notification before the stored form: the API's body as
// accepted, with its defaults left out.
constexpr const char* kVersion1BroadcastBody =
    R"({"type": "news.digest", "title": "Haftalik", "delay_seconds": 60})";
constexpr const char* kVersion1BroadcastFull =
    R"({"body": "Yangi versiya", "data": {"post": 3}, "link": "/news/3", "type": "news.post",
        "title": "Yangilik", "channels": ["email", "push"]})";

TEST(StoredRequestTest, VersionOneDelayedRequestsDecodeToWhatWasAskedFor) {
  const NotificationRequest r = DecodeStoredRequest(1, nlohmann::json::parse(kVersion1Delayed));
  EXPECT_EQ(r.user_id, 1);
  EXPECT_EQ(r.type, "task.due");
  EXPECT_EQ(r.title, "Vazifa muddati");
  EXPECT_EQ(r.body, "Hisobot ertaga");
  EXPECT_EQ(r.link, "/tasks/7");
  EXPECT_EQ(r.category, "tasks");
  EXPECT_EQ(r.data, nlohmann::json({{"task_id", 7}}));
  EXPECT_EQ(r.channels, std::vector<ChannelKind>{ChannelKind::kEmail});
  EXPECT_TRUE(r.critical);
  EXPECT_EQ(r.dedup_key, "task:7");
  EXPECT_EQ(r.cancellation_key, "task-7");
  EXPECT_FALSE(r.send_at);
  EXPECT_FALSE(r.delay_seconds);

  const NotificationRequest plain =
      DecodeStoredRequest(1, nlohmann::json::parse(kVersion1DelayedPlain));
  EXPECT_EQ(plain.user_id, 2);
  EXPECT_EQ(plain.body, "");
  EXPECT_FALSE(plain.link);
  EXPECT_FALSE(plain.category);
  EXPECT_FALSE(plain.critical);
  EXPECT_EQ(plain.channels.size(), core::ChannelCount());
}

TEST(StoredRequestTest, VersionOneBroadcastBodiesDecodeWithTheApisDefaults) {
  const NotificationRequest digest =
      DecodeStoredRequest(1, nlohmann::json::parse(kVersion1BroadcastBody));
  EXPECT_EQ(digest.user_id, 0);
  EXPECT_EQ(digest.type, "news.digest");
  EXPECT_EQ(digest.delay_seconds, 60);
  EXPECT_EQ(digest.data, nlohmann::json::object());
  EXPECT_EQ(digest.channels.size(), core::ChannelCount()) << "no channels given: every channel";
  EXPECT_FALSE(digest.critical);

  const NotificationRequest post =
      DecodeStoredRequest(1, nlohmann::json::parse(kVersion1BroadcastFull));
  EXPECT_EQ(post.channels, (std::vector<ChannelKind>{ChannelKind::kEmail, ChannelKind::kPush}));
  EXPECT_EQ(post.data, nlohmann::json({{"post", 3}}));
  EXPECT_EQ(post.link, "/news/3");
}

TEST(StoredRequestTest, WhatIsEncodedDecodesToTheSameRequest) {
  NotificationRequest r;
  r.user_id = 42;
  r.type = "invoice.paid";
  r.title = "To'lov qabul qilindi";
  r.body = "Rahmat";
  r.category = "billing";
  r.link = "/invoices/9";
  r.data = {{"amount", 120000}, {"items", {1, 2}}};
  r.dedup_key = "invoice:9";
  r.cancellation_key = "invoice-9";
  r.channels = {ChannelKind::kSms, ChannelKind::kTelegram};
  r.critical = true;
  r.send_at = core::ParseRfc3339("2027-03-01T09:30:00.250Z");
  const NotificationRequest back = DecodeStoredRequest(
      kStoredRequestVersion, nlohmann::json::parse(EncodeStoredRequest(r).dump()));
  EXPECT_EQ(back.user_id, r.user_id);
  EXPECT_EQ(back.type, r.type);
  EXPECT_EQ(back.title, r.title);
  EXPECT_EQ(back.body, r.body);
  EXPECT_EQ(back.category, r.category);
  EXPECT_EQ(back.link, r.link);
  EXPECT_EQ(back.data, r.data);
  EXPECT_EQ(back.dedup_key, r.dedup_key);
  EXPECT_EQ(back.cancellation_key, r.cancellation_key);
  EXPECT_EQ(back.channels, r.channels);
  EXPECT_EQ(back.critical, r.critical);
  EXPECT_EQ(back.send_at, r.send_at);
  EXPECT_FALSE(back.delay_seconds);

  r.send_at.reset();
  r.delay_seconds = 90;
  r.channels.clear();  // "channels": [] asks for none, unlike no channels at all
  const NotificationRequest delayed =
      DecodeStoredRequest(kStoredRequestVersion, EncodeStoredRequest(r));
  EXPECT_EQ(delayed.delay_seconds, 90);
  EXPECT_TRUE(delayed.channels.empty());
}

// Version 2: version 1's members and the tenant, written only for a
// request in a tenant (one without stays version 1).
constexpr const char* kVersion2DelayedInTenant =
    R"({"user_id": 7, "type": "task.due", "title": "Due", "data": {"task": 1},)"
    R"( "critical": false, "channels": ["email"], "tenant": "acme"})";

TEST(StoredRequestTest, Version2CarriesTheTenant) {
  const NotificationRequest r =
      DecodeStoredRequest(2, nlohmann::json::parse(kVersion2DelayedInTenant));
  EXPECT_EQ(r.user_id, 7);
  EXPECT_EQ(r.tenant, "acme");
  EXPECT_EQ(r.channels, (std::vector<ChannelKind>{ChannelKind::kEmail}));
  EXPECT_FALSE(DecodeStoredRequest(2, nlohmann::json::parse(kVersion1DelayedPlain)).tenant)
      << "a version 1 form is a version 2 form without a tenant";

  NotificationRequest plain = r;
  plain.tenant.reset();
  EXPECT_EQ(StoredRequestVersionOf(plain), 1);
  EXPECT_FALSE(EncodeStoredRequest(plain).contains("tenant"));
  EXPECT_EQ(StoredRequestVersionOf(r), 2);
  EXPECT_EQ(DecodeStoredRequest(StoredRequestVersionOf(r), EncodeStoredRequest(r)).tenant, "acme");
}

// Version 3: version 2's members, the actions and the tags, written only
// for a request with either.
constexpr const char* kVersion3DelayedWithActions =
    R"({"user_id": 7, "type": "invite.sent", "title": "Taklif", "data": {}, "critical": false,)"
    R"( "channels": ["email"], "tenant": "acme", "tags": ["invites", "team"],)"
    R"( "actions": [{"label": "Ochish", "url": "/invites/7"},)"
    R"( {"label": "Qabul qilish", "event": "invite.accept"}]})";

TEST(StoredRequestTest, Version3CarriesTheActionsAndTags) {
  const NotificationRequest r =
      DecodeStoredRequest(3, nlohmann::json::parse(kVersion3DelayedWithActions));
  EXPECT_EQ(r.tenant, "acme");
  EXPECT_EQ(r.tags, (std::vector<std::string>{"invites", "team"}));
  EXPECT_EQ(r.actions,
            (std::vector<NotificationAction>{{"Ochish", "/invites/7", std::nullopt},
                                             {"Qabul qilish", std::nullopt, "invite.accept"}}));
  EXPECT_TRUE(DecodeStoredRequest(3, nlohmann::json::parse(kVersion2DelayedInTenant)).tags.empty())
      << "a version 2 form is a version 3 form without actions or tags";

  EXPECT_EQ(StoredRequestVersionOf(r), 3);
  const NotificationRequest back = DecodeStoredRequest(3, EncodeStoredRequest(r));
  EXPECT_EQ(back.actions, r.actions);
  EXPECT_EQ(back.tags, r.tags);
  NotificationRequest tags_only = r;
  tags_only.actions.clear();
  EXPECT_EQ(StoredRequestVersionOf(tags_only), 3);
  EXPECT_FALSE(EncodeStoredRequest(tags_only).contains("actions"));
  NotificationRequest neither = tags_only;
  neither.tags.clear();
  EXPECT_EQ(StoredRequestVersionOf(neither), 2);

  nlohmann::json wrong = nlohmann::json::parse(kVersion3DelayedWithActions);
  wrong["actions"] = {{{"url", "/x"}}};
  EXPECT_THROW(DecodeStoredRequest(3, wrong), StoredRequestError);
}

// The API refuses these today; work accepted before a rule was tightened
// (or by a looser rule) must still be released.
TEST(StoredRequestTest, TheApisRulesDoNotApplyToWhatWasStored) {
  nlohmann::json form = nlohmann::json::parse(kVersion1DelayedPlain);
  form["title"] = std::string(5000, 'x');  // the API takes at most 500
  form["type"] = "Legacy-Type";            // not ^[a-z]+(\.[a-z_]+)*$
  form["link"] = "https://example.com/";   // not an internal path
  form["unknown_field"] = true;            // ignored, not refused
  const NotificationRequest r = DecodeStoredRequest(1, form);
  EXPECT_EQ(r.title.size(), 5000u);
  EXPECT_EQ(r.type, "Legacy-Type");
  EXPECT_EQ(r.link, "https://example.com/");
}

TEST(StoredRequestTest, AFormItCannotReadIsRefusedWithItsReason) {
  const nlohmann::json good = nlohmann::json::parse(kVersion1DelayedPlain);
  try {
    (void)DecodeStoredRequest(kStoredRequestVersion + 1, good);
    FAIL() << "a newer version decoded";
  } catch (const StoredRequestError& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this chopar"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DecodeStoredRequest(0, good), StoredRequestError);
  EXPECT_THROW(DecodeStoredRequest(1, nlohmann::json::array()), StoredRequestError);
  nlohmann::json no_type = good;
  no_type.erase("type");
  EXPECT_THROW(DecodeStoredRequest(1, no_type), StoredRequestError);
  nlohmann::json wrong = good;
  wrong["title"] = 5;
  EXPECT_THROW(DecodeStoredRequest(1, wrong), StoredRequestError);
  wrong = good;
  wrong["channels"] = {"pigeon"};
  EXPECT_THROW(DecodeStoredRequest(1, wrong), StoredRequestError);
  wrong = good;
  wrong["send_at"] = "tomorrow";
  EXPECT_THROW(DecodeStoredRequest(1, wrong), StoredRequestError);
}

}  // namespace
}  // namespace chopar::hub
