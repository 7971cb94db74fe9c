#include "core/text.hpp"

#include <gtest/gtest.h>

namespace chopar::core {
namespace {

TEST(TextTest, LowersAsciiOnlyAndLeavesUtf8Alone) {
  EXPECT_EQ(AsciiLower("Content-Type"), "content-type");
  EXPECT_EQ(AsciiLower("KEY,Ünï"), "key,Ünï");
}

TEST(TextTest, ComparesIgnoringCase) {
  EXPECT_TRUE(EqualsIgnoringCase("Bearer", "bEARER"));
  EXPECT_FALSE(EqualsIgnoringCase("Bearer", "Bearer "));
  EXPECT_TRUE(StartsWithIgnoringCase("BEARER abc", "bearer "));
  EXPECT_FALSE(StartsWithIgnoringCase("bear", "bearer "));
  EXPECT_TRUE(ContainsIgnoringCase("Bad Request: CHAT not found", "chat not found"));
  EXPECT_FALSE(ContainsIgnoringCase("chat", "chat not found"));
}

TEST(TextTest, TrimsSpacesAndTabsOnly) {
  EXPECT_EQ(TrimBlanks(" \t key \t"), "key");
  EXPECT_EQ(TrimBlanks(" \t "), "");
  EXPECT_EQ(TrimBlanks("\nkey\n"), "\nkey\n");
}

TEST(TextTest, TrimWhitespaceAlsoDropsLineEnds) {
  EXPECT_EQ(TrimWhitespace("\r\n\t value \r\n"), "value");
  EXPECT_EQ(TrimWhitespace("a b"), "a b");
  EXPECT_EQ(TrimWhitespace("\r\n"), "");
  EXPECT_EQ(TrimAny("--x-y--", "-"), "x-y");
}

TEST(TextTest, WithoutTrailingSlashesKeepsTheRestOfTheUrl) {
  EXPECT_EQ(WithoutTrailingSlashes("https://x.example//"), "https://x.example");
  EXPECT_EQ(WithoutTrailingSlashes("https://x.example/base"), "https://x.example/base");
  EXPECT_EQ(WithoutTrailingSlashes("/"), "");
  EXPECT_EQ(WithoutTrailingSlashes(""), "");
}

}  // namespace
}  // namespace chopar::core
