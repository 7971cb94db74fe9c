#include "hub/user_request.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/request_error.hpp"
#include "testing/request_error.hpp"

namespace chopar::hub {
namespace {

using nlohmann::json;

constexpr const char* kP256dh =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
constexpr const char* kAuth = "BTBZMqHH6r4Tts7J_aSIgg";

using testing::RequestErrorOf;

// "code field" of the error a user body gets, e.g. "invalid_field email".
std::string UserError(const json& body) {
  const auto e = RequestErrorOf([&] { return ParseUserUpdate(body); });
  return std::string(core::ErrorCodeName(e.code())) + " " + e.field().value_or("");
}

TEST(UserUpdateParsing, AbsentKeepsNullClearsAValueSets) {
  const UserUpdate update =
      ParseUserUpdate({{"email", "a@example.uz"},
                       {"phone", nullptr},
                       {"preferences", {{"sms", nullptr}, {"push", false}}},
                       {"quiet_hours", {{"start", "22:00"}, {"end", "08:00"}}},
                       {"admin", nullptr}});
  EXPECT_TRUE(update.email.changes);
  EXPECT_EQ(update.email.value, "a@example.uz");
  EXPECT_TRUE(update.phone.changes);
  EXPECT_EQ(update.phone.value, std::nullopt);
  EXPECT_FALSE(update.timezone.changes);
  EXPECT_FALSE(update.locale.changes);
  EXPECT_TRUE(update.preferences.changes);
  EXPECT_EQ(update.preferences.value, (json{{"sms", nullptr}, {"push", false}}));
  ASSERT_TRUE(update.quiet_hours.value);
  EXPECT_EQ(update.quiet_hours.value->start, "22:00");
  EXPECT_EQ(update.quiet_hours.value->end, "08:00");
  EXPECT_TRUE(update.admin.changes);
  EXPECT_EQ(update.admin.value, std::nullopt);

  const UserUpdate empty = ParseUserUpdate(json::object());
  EXPECT_FALSE(empty.email.changes || empty.phone.changes || empty.timezone.changes ||
               empty.locale.changes || empty.preferences.changes || empty.quiet_hours.changes ||
               empty.admin.changes);
}

TEST(UserUpdateParsing, NormalisesThePhone) {
  EXPECT_EQ(ParseUserUpdate({{"phone", "+998 90 123-45-67"}}).phone.value, "+998901234567");
  EXPECT_EQ(ParseUserUpdate({{"phone", "00998901234567"}}).phone.value, "+998901234567");
}

TEST(UserUpdateParsing, BadInputNamesTheField) {
  EXPECT_EQ(UserError({{"timezone", "Mars/Olympus_Mons"}}), "invalid_field timezone");
  EXPECT_EQ(UserError({{"timezone", 5}}), "invalid_field timezone");
  EXPECT_EQ(UserError({{"email", "not-an-email"}}), "invalid_field email");
  EXPECT_EQ(UserError({{"email", "a@b@c.uz"}}), "invalid_field email");
  EXPECT_EQ(UserError({{"email", 42}}), "invalid_field email");
  EXPECT_EQ(UserError({{"phone", "+12"}}), "invalid_field phone");
  EXPECT_EQ(UserError({{"phone", "+99890abc4567"}}), "invalid_field phone");
  EXPECT_EQ(UserError({{"locale", "English!"}}), "invalid_field locale");
  EXPECT_EQ(UserError({{"locale", "u"}}), "invalid_field locale");
  EXPECT_EQ(UserError({{"preferences", {true}}}), "invalid_field preferences");
  EXPECT_EQ(UserError({{"quiet_hours", {{"start", "25:00"}, {"end", "08:00"}}}}),
            "invalid_field quiet_hours");
  EXPECT_EQ(UserError({{"quiet_hours", {{"start", "08:00"}, {"end", "08:00"}}}}),
            "invalid_field quiet_hours");
  EXPECT_EQ(UserError({{"quiet_hours", "22:00-08:00"}}), "invalid_field quiet_hours");
  EXPECT_EQ(UserError({{"admin", "yes"}}), "invalid_field admin");
  EXPECT_EQ(UserError({{"nickname", "aziz"}}), "invalid_field nickname");
  EXPECT_EQ(UserError(json::array()), "invalid_json ");
  // Fields are checked in a fixed order; the first bad one is named.
  EXPECT_EQ(UserError({{"email", "new@example.uz"}, {"phone", "nope"}}), "invalid_field phone");
  EXPECT_EQ(UserError({{"admin", "yes"}, {"email", "bad"}}), "invalid_field email");
}

TEST(UserUpdateParsing, MessagesSayWhatIsExpected) {
  EXPECT_STREQ(RequestErrorOf([] {
                 return ParseUserUpdate({{"timezone", "Mars/Olympus"}});
               }).what(),
               "unknown IANA time zone Mars/Olympus");
  EXPECT_STREQ(RequestErrorOf([] {
                 return ParseUserUpdate({{"email", 42}});
               }).what(),
               "email must be a string");
  EXPECT_STREQ(RequestErrorOf([] {
                 return ParseUserUpdate({{"nickname", 1}});
               }).what(),
               "unknown field nickname");
  EXPECT_STREQ(RequestErrorOf([] { return ParseUserUpdate(json::array()); }).what(),
               "the body must be a JSON object");
}

TEST(TelegramChatParsing, ReadsAnIntegerChatId) {
  EXPECT_EQ(ParseTelegramChat({{"chat_id", 900000001}}).chat_id, 900000001);
  EXPECT_EQ(ParseTelegramChat({{"chat_id", -1001234567890}}).chat_id, -1001234567890);
  for (const json& body : {json{{"chat_id", "abc"}}, json::object(), json{{"chat_id", 1.5}}}) {
    const auto e = RequestErrorOf([&] { return ParseTelegramChat(body); });
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << body;
    EXPECT_EQ(e.field(), "chat_id") << body;
  }
  EXPECT_EQ(RequestErrorOf([] { return ParseTelegramChat(json::array()); }).code(),
            core::ErrorCode::kInvalidJson);
}

json Subscription(const std::string& endpoint, json keys = {{"p256dh", kP256dh}, {"auth", kAuth}}) {
  return {{"endpoint", endpoint}, {"keys", std::move(keys)}};
}

TEST(PushSubscriptionParsing, KeepsTheEndpointAndNormalisedKeys) {
  const PushSubscription parsed =
      ParsePushSubscription(Subscription("https://push.example/x"), false);
  EXPECT_EQ(parsed.endpoint, "https://push.example/x");
  EXPECT_EQ(parsed.p256dh, kP256dh);
  EXPECT_EQ(parsed.auth, kAuth);
  // Padded base64url comes back unpadded.
  EXPECT_EQ(ParsePushSubscription(
                Subscription("https://push.example/x", {{"p256dh", std::string(kP256dh) + "="},
                                                        {"auth", std::string(kAuth) + "=="}}),
                false)
                .auth,
            kAuth);
}

TEST(PushSubscriptionParsing, HttpEndpointsOnlyWhereAllowed) {
  EXPECT_EQ(RequestErrorOf([] {
              return ParsePushSubscription(Subscription("http://127.0.0.1:9/x"), false);
            }).field(),
            "endpoint");
  EXPECT_EQ(ParsePushSubscription(Subscription("http://127.0.0.1:9/x"), true).endpoint,
            "http://127.0.0.1:9/x");
  EXPECT_EQ(RequestErrorOf([] {
              return ParsePushSubscription(Subscription("ftp://push.example/x"), true);
            }).field(),
            "endpoint");
}

TEST(PushSubscriptionParsing, BadInputNamesTheField) {
  auto field_of = [](const json& body) {
    return RequestErrorOf([&] { return ParsePushSubscription(body, false); }).field().value_or("");
  };
  EXPECT_EQ(field_of(Subscription("https://push.example/a b")), "endpoint");
  EXPECT_EQ(field_of(json{{"keys", {{"p256dh", kP256dh}, {"auth", kAuth}}}}), "endpoint");
  EXPECT_EQ(field_of(json{{"endpoint", "https://push.example/x"}}), "keys");
  EXPECT_EQ(
      field_of(Subscription("https://push.example/x", {{"p256dh", "BCVxsr7N"}, {"auth", kAuth}})),
      "keys.p256dh");
  EXPECT_EQ(field_of(Subscription("https://push.example/x",
                                  {{"p256dh", std::string(87, '*')}, {"auth", kAuth}})),
            "keys.p256dh");
  EXPECT_EQ(
      field_of(Subscription("https://push.example/x", {{"p256dh", kP256dh}, {"auth", "c2hvcnQ"}})),
      "keys.auth");
  EXPECT_EQ(field_of(Subscription("https://push.example/x", {{"p256dh", kP256dh}, {"auth", 5}})),
            "auth");
  EXPECT_EQ(field_of(Subscription("https://push.example/x", {{"auth", kAuth}})), "p256dh");
  // The endpoint is checked before the keys.
  EXPECT_EQ(field_of(json{{"endpoint", "http://push.example/x"}}), "endpoint");
}

}  // namespace
}  // namespace chopar::hub
