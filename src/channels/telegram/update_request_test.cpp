#include <gtest/gtest.h>

#include "channels/telegram/updates.hpp"

namespace chopar::channels::telegram {
namespace {

using nlohmann::json;
using Kind = TelegramUpdateRequest::Kind;

json Message(const std::string& text, const std::string& chat_type = "private") {
  return {{"update_id", 1},
          {"message",
           {{"chat", {{"id", 900000001}, {"type", chat_type}}},
            {"from", {{"language_code", "uz"}}},
            {"text", text}}}};
}

TEST(ReadTelegramUpdateTest, StartInAPrivateChatCarriesItsPayloadAndLocale) {
  const auto request = ReadTelegramUpdate(Message("/start@chopar_bot  abc  "), "chopar_bot");
  EXPECT_EQ(request.kind, Kind::kStart);
  EXPECT_EQ(request.chat_id, 900000001);
  EXPECT_EQ(request.payload, "abc");
  EXPECT_EQ(request.from_locale, "uz");
  EXPECT_EQ(ReadTelegramUpdate(Message("/start"), "chopar_bot").payload, "");
}

TEST(ReadTelegramUpdateTest, OtherChatsBotsTextsAndShapesAreIgnored) {
  EXPECT_EQ(ReadTelegramUpdate(Message("/start abc", "group"), "chopar_bot").kind, Kind::kIgnore);
  EXPECT_EQ(ReadTelegramUpdate(Message("/start@other_bot abc"), "chopar_bot").kind, Kind::kIgnore);
  EXPECT_EQ(ReadTelegramUpdate(Message("/started"), "chopar_bot").kind, Kind::kIgnore);
  EXPECT_EQ(ReadTelegramUpdate(Message("hello"), "chopar_bot").kind, Kind::kIgnore);
  for (const json& odd : {json(nullptr), json::array(), json(5), json{{"message", "x"}},
                          json{{"message", {{"chat", {{"id", "1"}, {"type", "private"}}}}}}}) {
    EXPECT_EQ(ReadTelegramUpdate(odd, "chopar_bot").kind, Kind::kIgnore) << odd.dump();
  }
}

TEST(ReadTelegramUpdateTest, KickedAndMemberChangeTheConnection) {
  const auto member = [](const std::string& status) {
    return json{
        {"my_chat_member", {{"chat", {{"id", 5}}}, {"new_chat_member", {{"status", status}}}}}};
  };
  EXPECT_EQ(ReadTelegramUpdate(member("kicked"), "b").kind, Kind::kMemberStatus);
  EXPECT_FALSE(ReadTelegramUpdate(member("kicked"), "b").active);
  EXPECT_TRUE(ReadTelegramUpdate(member("member"), "b").active);
  EXPECT_EQ(ReadTelegramUpdate(member("administrator"), "b").kind, Kind::kIgnore);
}

}  // namespace
}  // namespace chopar::channels::telegram
