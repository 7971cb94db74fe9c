#include "hub/channel_choice.hpp"

#include <gtest/gtest.h>

#include "hub/preferences.hpp"

namespace chopar::hub {
namespace {

using core::ChannelKind;
using Kinds = std::vector<ChannelKind>;
const Kinds kAll(core::AllChannels().begin(), core::AllChannels().end());
constexpr Addressable kEverywhere = {true, true, true, true};

TEST(ChannelChoice, PreferencesAndDefaultsOverAllAddresses) {
  // The source document's worked example: ({email:true, telegram:true}, all addresses) → [email,
  // telegram, push].
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
  EXPECT_EQ(ChooseChannels(nlohmann::json::object(), kEverywhere, {ChannelKind::kSms}, false),
            Kinds{});
}

TEST(ChannelChoice, NonBooleanPreferenceFallsBackToDefault) {
  EXPECT_TRUE(ChannelEnabled({{"email", "no"}}, ChannelKind::kEmail));
  EXPECT_FALSE(ChannelEnabled({{"sms", 1}}, ChannelKind::kSms));
  EXPECT_FALSE(ChannelEnabled({{"email", false}}, ChannelKind::kEmail));
}

TEST(ChannelChoice, CriticalIgnoresPreferencesButNotAddresses) {
  const nlohmann::json everything_off = {
      {"email", false}, {"telegram", false}, {"push", false}, {"sms", false}};
  EXPECT_EQ(ChooseChannels(everything_off, {true, false, true, false}, kAll, true),
            (Kinds{ChannelKind::kEmail, ChannelKind::kPush}));
}

TEST(ChannelChoice, OnlyRequestedChannels) {
  EXPECT_EQ(ChooseChannels(nullptr, kEverywhere, {ChannelKind::kTelegram}, false),
            (Kinds{ChannelKind::kTelegram}));
}

}  // namespace
}  // namespace chopar::hub

namespace chopar::hub {
namespace {

using core::ChannelKind;
using Kinds = std::vector<ChannelKind>;
constexpr auto E = ChannelKind::kEmail;
constexpr auto T = ChannelKind::kTelegram;
constexpr auto P = ChannelKind::kPush;
constexpr auto S = ChannelKind::kSms;

struct ChoiceCase {
  const char* name;
  const char* preferences;  // JSON
  Addressable addressable;
  const char* type;
  std::optional<std::string_view> category;
  bool critical;
  Kinds expected;
};

// Every level of docs/api.md "Preferences by category and type", most
// specific first, and the four users of the seed (SEEDS §000) unchanged by
// a type and category they never set.
const ChoiceCase kCases[] = {
    // The seed's users, with everything requested.
    {"Aziz: email and Telegram on, Telegram connected",
     R"({"email": true, "telegram": true})",
     {true, true, false, false},
     "task.due",
     "tasks",
     false,
     {E, T}},
    {"Dilnoza: email off, no Telegram",
     R"({"email": false})",
     {true, false, false, false},
     "task.due",
     "tasks",
     false,
     {}},
    {"Sardor: nothing set, email by default",
     "{}",
     {true, false, false, false},
     "task.due",
     "tasks",
     false,
     {E}},
    {"Gulnora: email on, Telegram off, push subscribed",
     R"({"email": true, "telegram": false})",
     {true, true, true, false},
     "task.due",
     "tasks",
     false,
     {E, P}},
    // Categories.
    {"category off turns every channel off",
     R"({"categories": {"marketing": false}})",
     {true, true, true, true},
     "promo.sale",
     "marketing",
     false,
     {}},
    {"category on turns SMS on too",
     R"({"categories": {"tasks": true}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T, P, S}},
    {"category-channel off leaves the others",
     R"({"categories": {"tasks": {"email": false}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {T, P}},
    {"category-channel beats the channel's own",
     R"({"email": false, "categories": {"tasks": {"email": true}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T, P}},
    {"another category's setting is no setting",
     R"({"categories": {"marketing": false}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T, P}},
    {"no category: categories are passed over",
     R"({"categories": {"tasks": false}})",
     {true, true, true, true},
     "task.due",
     std::nullopt,
     false,
     {E, T, P}},
    // Types.
    {"type off beats its category on",
     R"({"categories": {"tasks": true}, "types": {"task.due": false}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {}},
    {"type on beats its category off",
     R"({"categories": {"marketing": false}, "types": {"promo.vip": true}})",
     {true, true, true, false},
     "promo.vip",
     "marketing",
     false,
     {E, T, P}},
    {"type-channel off leaves the others",
     R"({"types": {"task.due": {"telegram": false}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, P}},
    {"type-channel on beats a category off",
     R"({"categories": {"tasks": false}, "types": {"task.due": {"sms": true}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {S}},
    {"type-channel beats type-wide in its category's place",
     R"({"categories": {"tasks": {"telegram": false}}, "types": {"task.due": {"email": false}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {P}},
    {"a type object silent on a channel falls to the category",
     R"({"categories": {"tasks": {"push": false}}, "types": {"task.due": {"email": true}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T}},
    {"another type's setting is no setting",
     R"({"types": {"task.done": false}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T, P}},
    // Values that are not settings.
    {"a string is no setting",
     R"({"categories": {"tasks": "off"}, "types": {"task.due": {"email": "no"}}})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T, P}},
    {"categories that are not an object are passed over",
     R"({"categories": false})",
     {true, true, true, true},
     "task.due",
     "tasks",
     false,
     {E, T, P}},
    // Critical and addressability.
    {"critical bypasses every level",
     R"({"email": false, "categories": {"tasks": false}, "types": {"task.due": false}})",
     {true, true, false, true},
     "task.due",
     "tasks",
     true,
     {E, T, S}},
    {"a type on never makes a channel addressable",
     R"({"types": {"task.due": true}})",
     {false, true, false, false},
     "task.due",
     "tasks",
     false,
     {T}},
};

TEST(ChannelChoice, ResolutionTable) {
  const Kinds all(core::AllChannels().begin(), core::AllChannels().end());
  for (const ChoiceCase& c : kCases) {
    const PreferenceScope scope{c.type, c.category};
    EXPECT_EQ(
        ChooseChannels(nlohmann::json::parse(c.preferences), c.addressable, all, c.critical, scope),
        c.expected)
        << c.name;
  }
}

// A tenant's defaults under the user's own settings (WithTenantDefaults).
TEST(ChannelChoice, TheUsersOwnSettingsWinOverTheTenantsDefaults) {
  const nlohmann::json tenant = {{"email", false},
                                 {"sms", true},
                                 {"categories", {{"marketing", false}}},
                                 {"types", {{"task.due", {{"email", true}, {"push", false}}}}}};
  const nlohmann::json own = {{"sms", false},
                              {"categories", {{"marketing", {{"push", true}}}}},
                              {"types", {{"task.due", {{"push", true}}}}}};
  const nlohmann::json merged = WithTenantDefaults(tenant, own);
  EXPECT_EQ(merged["email"], false) << "the user set none: the tenant's";
  EXPECT_EQ(merged["sms"], false) << "the user's own";
  EXPECT_EQ(merged["types"]["task.due"], nlohmann::json({{"email", true}, {"push", true}}));
  EXPECT_EQ(merged["categories"]["marketing"]["push"], true);
  EXPECT_EQ(merged["categories"]["marketing"]["email"], false)
      << "the tenant's whole-category false, spelled out for the channels the user left";
  const PreferenceScope marketing{"promo.sale", "marketing"};
  EXPECT_EQ(ChooseChannels(merged, kEverywhere, kAll, false, marketing),
            (Kinds{ChannelKind::kPush}));
  EXPECT_EQ(WithTenantDefaults(nlohmann::json::object(), own), own);
  EXPECT_EQ(WithTenantDefaults(tenant, nlohmann::json::object()), tenant);
}

}  // namespace
}  // namespace chopar::hub
