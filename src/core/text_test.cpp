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

}  // namespace
}  // namespace chopar::core
