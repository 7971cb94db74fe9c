#include "core/channel_kind.hpp"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace chopar::core
