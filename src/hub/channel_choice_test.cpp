#include "hub/channel_choice.hpp"

#include <gtest/gtest.h>

namespace chopar::hub {
namespace {

using core::ChannelKind;
using Kinds = std::vector<ChannelKind>;
const Kinds kAll(core::kAllChannels.begin(), core::kAllChannels.end());
constexpr Addressable kEverywhere = {true, true, true, true};

TEST(ChannelChoice, PreferencesAndDefaultsOverAllAddresses) {
  // The source document's worked example: ({email:true, telegram:true}, all addresses) → [email, telegram, push].
  EXPECT_EQ(ChooseChannels({{"email", true}, {"telegram", true}}, kEverywhere, kAll, false),
            (Kinds{ChannelKind::kEmail, ChannelKind::kTelegram, ChannelKind::kPush}));
}

TEST(ChannelChoice, DisabledEmailWithoutTelegramLeavesPush) {
  EXPECT_EQ(ChooseChannels({{"email", false}}, {true, false, true, true}, kAll, false),
            (Kinds{ChannelKind::kPush}));
}

TEST(ChannelChoice, NullPreferencesWithoutPushUseDefaults) {
  EXPECT_EQ(ChooseChannels(nullptr, {true, true, false, true}, kAll, false),
            (Kinds{ChannelKind::kEmail, ChannelKind::kTelegram}));
}

TEST(ChannelChoice, SmsOnlyWhenEnabledAndRequested) {
  EXPECT_EQ(ChooseChannels({{"sms", true}}, kEverywhere, {ChannelKind::kSms}, false),
            (Kinds{ChannelKind::kSms}));
  EXPECT_EQ(ChooseChannels(nlohmann::json::object(), kEverywhere, {ChannelKind::kSms}, false), Kinds{});
}

TEST(ChannelChoice, NonBooleanPreferenceFallsBackToDefault) {
  EXPECT_TRUE(ChannelEnabled({{"email", "no"}}, ChannelKind::kEmail));
  EXPECT_FALSE(ChannelEnabled({{"sms", 1}}, ChannelKind::kSms));
  EXPECT_FALSE(ChannelEnabled({{"email", false}}, ChannelKind::kEmail));
}

TEST(ChannelChoice, CriticalIgnoresPreferencesButNotAddresses) {
  const nlohmann::json everything_off = {{"email", false}, {"telegram", false}, {"push", false}, {"sms", false}};
  EXPECT_EQ(ChooseChannels(everything_off, {true, false, true, false}, kAll, true),
            (Kinds{ChannelKind::kEmail, ChannelKind::kPush}));
}

TEST(ChannelChoice, OnlyRequestedChannels) {
  EXPECT_EQ(ChooseChannels(nullptr, kEverywhere, {ChannelKind::kTelegram}, false),
            (Kinds{ChannelKind::kTelegram}));
}

}  // namespace
}  // namespace chopar::hub
