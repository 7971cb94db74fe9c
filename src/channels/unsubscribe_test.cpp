#include "channels/unsubscribe.hpp"

#include <gtest/gtest.h>

#include "core/encoding.hpp"
#include "core/key_derivation.hpp"

namespace chopar::channels {
namespace {

constexpr std::string_view kSecret = "inbox-secret";
const UnsubscribeScope kTasks{"category", "tasks"};
constexpr auto kEmail = core::ChannelKind::kEmail;

TEST(UnsubscribeTest, LinksAreSignedWithTheKeyDerivedForLinks) {
  const std::string key = core::DeriveKey(kSecret, core::KeyUse::kSignedLinks);
  EXPECT_EQ(SignUnsubscribe(kSecret, 7, kTasks, kEmail),
            core::Base64UrlEncode(core::HmacSha256(key, "unsubscribe\n7\ncategory:tasks\nemail")));
  EXPECT_TRUE(VerifyUnsubscribe(kSecret, 7, kTasks, kEmail, SignUnsubscribe(kSecret, 7, kTasks, kEmail)));
}

TEST(UnsubscribeTest, LinksMailedByEarlierVersionsKeepWorking) {
  // Signed with the inbox secret itself, as before keys were derived.
  const std::string mailed =
      core::Base64UrlEncode(core::HmacSha256(kSecret, "unsubscribe\n7\ncategory:tasks\nemail"));
  EXPECT_TRUE(VerifyUnsubscribe(kSecret, 7, kTasks, kEmail, mailed));
  EXPECT_FALSE(VerifyUnsubscribe(kSecret, 8, kTasks, kEmail, mailed));
}

TEST(UnsubscribeTest, ASubscriberTokenKeySignatureIsNotALink) {
  const std::string token_key = core::DeriveKey(kSecret, core::KeyUse::kSubscriberTokens);
  EXPECT_FALSE(VerifyUnsubscribe(
      kSecret, 7, kTasks, kEmail,
      core::Base64UrlEncode(core::HmacSha256(token_key, "unsubscribe\n7\ncategory:tasks\nemail"))));
  EXPECT_FALSE(VerifyUnsubscribe("", 7, kTasks, kEmail, SignUnsubscribe(kSecret, 7, kTasks, kEmail)));
  EXPECT_FALSE(
      VerifyUnsubscribe("other", 7, kTasks, kEmail, SignUnsubscribe(kSecret, 7, kTasks, kEmail)));
}

}  // namespace
}  // namespace chopar::channels
