#include "hub/validation.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "hub/notify_service.hpp"
#include "hub/push_keys.hpp"

namespace chopar::hub {
namespace {

TEST(Validation, TypeGrammar) {
  for (const char* good : {"task", "task.due", "task.due_soon", "a.b.c"}) EXPECT_TRUE(IsValidType(good)) << good;
  for (const char* bad : {"", "Task", "task.", ".task", "task..due", "task_due", "task.Due", "task-due", "1task"}) {
    EXPECT_FALSE(IsValidType(bad)) << bad;
  }
}

TEST(Validation, OnlyInternalLinks) {
  EXPECT_TRUE(IsInternalLink("/tasks/1"));
  EXPECT_TRUE(IsInternalLink("/a?b=c#d"));
  for (const char* bad : {"https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)",
                          "/", "tasks/1", "/a b", "/a\nb"}) {
    EXPECT_FALSE(IsInternalLink(bad)) << bad;
  }
}

TEST(Validation, PhoneNormalisedToE164) {
  EXPECT_EQ(NormalizePhone("+998 90 123-45-67"), "+998901234567");
  EXPECT_EQ(NormalizePhone("+998 (90) 123.45.67"), "+998901234567");
  EXPECT_EQ(NormalizePhone("00998901234567"), "+998901234567");
  EXPECT_EQ(NormalizePhone("901234567"), std::nullopt);    // no country code
  EXPECT_EQ(NormalizePhone("+0998901234567"), std::nullopt);
  EXPECT_EQ(NormalizePhone("+99890abc"), std::nullopt);
  EXPECT_EQ(NormalizePhone("+1234567890123456"), std::nullopt);  // 16 digits
}

TEST(Validation, Emails) {
  EXPECT_TRUE(IsValidEmail("aziz@example.uz"));
  for (const char* bad : {"aziz", "@example.uz", "aziz@", "aziz@example", "a b@example.uz", "a@b@c.uz"}) {
    EXPECT_FALSE(IsValidEmail(bad)) << bad;
  }
}

TEST(Validation, ClockTimes) {
  EXPECT_EQ(ParseClockTime("22:00"), 22 * 60);
  EXPECT_EQ(ParseClockTime("00:00"), 0);
  EXPECT_EQ(ParseClockTime("24:00"), std::nullopt);
  EXPECT_EQ(ParseClockTime("7:00"), std::nullopt);
}

TEST(NotificationRequestParsing, NamesTheOffendingField) {
  auto field_of = [](const nlohmann::json& body) -> std::string {
    try {
      ParseNotificationRequest(body);
    } catch (const core::RequestError& e) {
      return e.field().value_or("");
    }
    return "accepted";
  };
  const nlohmann::json ok = {{"user_id", 1}, {"type", "task.due"}, {"title", "Muddat yaqin"}};
  EXPECT_EQ(field_of(ok), "accepted");
  EXPECT_EQ(field_of({{"type", "task.due"}, {"title", "t"}}), "user_id");
  EXPECT_EQ(field_of({{"user_id", "1"}, {"type", "task.due"}, {"title", "t"}}), "user_id");
  EXPECT_EQ(field_of({{"user_id", 1}, {"type", "Task"}, {"title", "t"}}), "type");
  // A title may come from the type's template: refused later, when the
  // type has none (NotifyService).
  EXPECT_EQ(field_of({{"user_id", 1}, {"type", "task.due"}}), "accepted");
  EXPECT_EQ(field_of({{"user_id", 1}, {"type", "task.due"}, {"title", ""}}), "title");
  EXPECT_EQ(field_of({{"user_id", 1}, {"type", "task.due"}, {"category", "Tasks!"}}), "category");
  auto with = [&](const char* key, nlohmann::json value) {
    nlohmann::json body = ok;
    body[key] = std::move(value);
    return field_of(body);
  };
  EXPECT_EQ(with("link", "https://evil.example"), "link");
  EXPECT_EQ(with("channels", nlohmann::json::array({"email", "pigeon"})), "channels");
  EXPECT_EQ(with("channels", "email"), "channels");
  EXPECT_EQ(with("critical", "yes"), "critical");
  EXPECT_EQ(with("data", nlohmann::json::array()), "data");
  EXPECT_EQ(with("title", std::string(501, 'x')), "title");
}

TEST(PushKeys, AcceptsAPointOnTheCurveOnly) {
  // RFC 8291 Appendix A's user agent public key and auth secret.
  const char* ua_public = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
  EXPECT_TRUE(NormalizeP256dh(ua_public).has_value());
  std::string off_curve = ua_public;
  off_curve[40] = off_curve[40] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(NormalizeP256dh(off_curve).has_value());
  EXPECT_FALSE(NormalizeP256dh("BCVxsr7N").has_value());
  EXPECT_EQ(NormalizeAuthSecret("BTBZMqHH6r4Tts7J_aSIgg"), "BTBZMqHH6r4Tts7J_aSIgg");
  EXPECT_FALSE(NormalizeAuthSecret("BTBZMqHH6r4Tts7J").has_value());
}

}  // namespace
}  // namespace chopar::hub
