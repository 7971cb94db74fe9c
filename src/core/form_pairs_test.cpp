#include <gtest/gtest.h>

#include "core/encoding.hpp"

namespace chopar::core {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(DecodeFormPairsTest, SplitsDecodesAndKeepsTheOrder) {
  EXPECT_EQ(DecodeFormPairs("b=x+y%21&a=1&&flag&a=2", MalformedEscapes::kRefuse),
            (Pairs{{"b", "x y!"}, {"a", "1"}, {"flag", ""}, {"a", "2"}}));
  EXPECT_EQ(DecodeFormPairs("", MalformedEscapes::kRefuse), Pairs{});
  EXPECT_EQ(DecodeFormPairs("k%3D=v%26w", MalformedEscapes::kRefuse), (Pairs{{"k=", "v&w"}}));
}

TEST(DecodeFormPairsTest, EachPolicyForAMalformedEscape) {
  const std::string_view text = "ok=1&bad=%zz&%4=x&last=2";
  EXPECT_EQ(DecodeFormPairs(text, MalformedEscapes::kRefuse), std::nullopt);
  EXPECT_EQ(DecodeFormPairs(text, MalformedEscapes::kSkipPair),
            (Pairs{{"ok", "1"}, {"last", "2"}}));
  EXPECT_EQ(DecodeFormPairs(text, MalformedEscapes::kKeepAsSent),
            (Pairs{{"ok", "1"}, {"bad", "%zz"}, {"%4", "x"}, {"last", "2"}}));
}

}  // namespace
}  // namespace chopar::core
