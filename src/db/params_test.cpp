#include "db/params.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace chopar::db {
namespace {

TEST(ArrayLiteralTest, NumbersAndBooleans) {
  EXPECT_EQ(ArrayLiteral(std::vector<long long>{}), "{}");
  EXPECT_EQ(ArrayLiteral(std::vector<long long>{1, -2, 30000000000}), "{1,-2,30000000000}");
  EXPECT_EQ(ArrayLiteral(std::vector<bool>{true, false}), "{t,f}");
}

TEST(ArrayLiteralTest, TextsAreQuotedWithQuotesAndBackslashesEscaped) {
  EXPECT_EQ(ArrayLiteral(std::vector<std::string>{"a", "", "b c", "{x,y}"}),
            R"({"a","","b c","{x,y}"})");
  EXPECT_EQ(ArrayLiteral(std::vector<std::string>{R"(say "hi")", R"(C:\dir\)", R"(\")", "\"\""}),
            R"({"say \"hi\"","C:\\dir\\","\\\"","\"\""})");
  EXPECT_EQ(ArrayLiteral(std::vector<std::string_view>{"NULL", "x\ny"}), "{\"NULL\",\"x\ny\"}");
}

TEST(ArrayLiteralTest, NulloptIsNull) {
  EXPECT_EQ(ArrayLiteral(std::vector<std::optional<std::string>>{"a", std::nullopt, "\\"}),
            R"({"a",NULL,"\\"})");
  EXPECT_EQ(ArrayLiteral(std::vector<std::optional<long long>>{std::nullopt, 7}), "{NULL,7}");
}

// PostgreSQL reads back what the literal says (db_pgtest checks the round
// trip); here, that a text made only of the characters to escape, and a
// long one, come out whole.
TEST(ArrayLiteralTest, LongAndAllSpecialTexts) {
  const std::string specials(1000, '"');
  std::string escaped;
  for (char c : specials) escaped += std::string("\\") + c;
  EXPECT_EQ(ArrayLiteral(std::vector<std::string>{specials}), "{\"" + escaped + "\"}");
  const std::string long_text(100000, 'x');
  EXPECT_EQ(ArrayLiteral(std::vector<std::string>{long_text, "y"}),
            "{\"" + long_text + "\",\"y\"}");
}

}  // namespace
}  // namespace chopar::db
