#include "core/channel_kind.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::core {
namespace {

TEST(ChannelKindTest, NamesRoundTrip) {
  for (ChannelKind kind : AllChannels()) EXPECT_EQ(ParseChannel(ChannelName(kind)), kind);
  EXPECT_EQ(ParseChannel("fax"), std::nullopt);
  EXPECT_EQ(ParseChannel("Email"), std::nullopt);
}

TEST(PerChannelTest, IndexesByKindInTheOrderOfAllChannels) {
  PerChannel<int> limits{20, 30, 31, 3};
  EXPECT_EQ(limits[ChannelKind::kEmail], 20);
  EXPECT_EQ(limits[ChannelKind::kTelegram], 30);
  EXPECT_EQ(limits[ChannelKind::kPush], 31);
  EXPECT_EQ(limits[ChannelKind::kSms], 3);
  limits[ChannelKind::kPush] = 7;
  int sum = 0;
  for (int value : limits) sum += value;
  EXPECT_EQ(sum, 20 + 30 + 7 + 3);
}

TEST(PerChannelTest, DefaultsToValueInitialisedAndCompares) {
  PerChannel<std::string> names;
  for (const std::string& name : names) EXPECT_TRUE(name.empty());
  PerChannel<int> a;
  PerChannel<int> b{0, 0, 0, 0};
  EXPECT_EQ(a, b);
  b[ChannelKind::kSms] = 1;
  EXPECT_NE(a, b);
}

// Registering a channel that works is tests/registered_channel's (it
// changes the process's registry); here only what is refused, which leaves
// the registry as it was.
TEST(ChannelRegistryTest, RefusesBadNamesRepeatsAndFieldsTheMessageCannotCarry) {
  constexpr MessageField kText[] = {{"text", false, 100, 100, StandsFor::kTitleAndBody}};
  constexpr MessageField kUnknownField[] = {{"markdown", false, 100, 100, StandsFor::kBody}};
  const std::size_t before = ChannelCount();
  for (const std::string_view name : {"", "Pager", "9pager", "pa-ger", "pager pager",
                                      "a_name_that_is_longer_than_thirty_two"}) {
    EXPECT_THROW(RegisterChannel({name, "pager_number", true, 5, "channels.pager", kText}),
                 std::invalid_argument)
        << "'" << name << "'";
  }
  EXPECT_THROW(RegisterChannel({"email", "email", true, 5, "channels.email", kText}),
               std::invalid_argument);
  EXPECT_THROW(RegisterChannel({"pager", "pager_number", true, 5, "channels.pager", kUnknownField}),
               std::invalid_argument);
  EXPECT_EQ(ChannelCount(), before);
  EXPECT_EQ(ParseChannel("pager"), std::nullopt);
}

TEST(ChannelRegistryTest, AddressStoresOfTheBuiltInChannels) {
  EXPECT_EQ(StoreOf(InfoOf(ChannelKind::kEmail)), AddressStore::kEmail);
  EXPECT_EQ(StoreOf(InfoOf(ChannelKind::kTelegram)), AddressStore::kTelegramChat);
  EXPECT_EQ(StoreOf(InfoOf(ChannelKind::kPush)), AddressStore::kPushSubscription);
  EXPECT_EQ(StoreOf(InfoOf(ChannelKind::kSms)), AddressStore::kPhone);
  EXPECT_EQ(ChannelsKeptIn(AddressStore::kPhone), std::vector<std::string>{"sms"});
  EXPECT_TRUE(ChannelsKeptIn(AddressStore::kUser).empty());
  EXPECT_EQ(RegisteredHourlyLimits(), (PerChannel<int>{20, 30, 30, 3}));
}

}  // namespace
}  // namespace chopar::core
