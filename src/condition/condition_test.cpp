// What Parse accepts and refuses: every error with its position (bytes) and
// column (code points), the bounds, and what a parsed condition reports.
// The meaning of what parses is in evaluate_test.cpp.

#include "condition/condition.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace chopar::condition {
namespace {

using nlohmann::json;

struct Refusal {
  std::string problem;
  std::size_t position = 0;
  std::size_t column = 0;
  std::string what;
};

Refusal RefusalOf(std::string_view source) {
  try {
    Condition::Parse(source);
  } catch (const SyntaxError& e) {
    return Refusal{e.problem(), e.position(), e.column(), e.what()};
  }
  ADD_FAILURE() << "parsed: " << source;
  return {};
}

// Parse refuses `source` at byte `position`, column `column`, with a
// problem that contains `problem`.
void ExpectRefused(std::string_view source, std::size_t position, std::size_t column,
                   const std::string& problem) {
  SCOPED_TRACE(std::string(source));
  const Refusal refusal = RefusalOf(source);
  EXPECT_EQ(refusal.position, position);
  EXPECT_EQ(refusal.column, column);
  EXPECT_NE(refusal.problem.find(problem), std::string::npos) << refusal.problem;
  EXPECT_EQ(refusal.what, refusal.problem + " at position " + std::to_string(column));
}

// An ASCII source: the column is the position + 1.
void ExpectRefused(std::string_view source, std::size_t position, const std::string& problem) {
  ExpectRefused(source, position, position + 1, problem);
}

std::string Repeat(std::string_view piece, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

TEST(ConditionParseTest, AcceptsTheGrammarsForms) {
  for (const std::string_view source : {
           "true",
           "notification.seen == false && user.data.plan == \"pro\"",
           "steps[1].outcome in [\"failed\", \"skipped\"]",
           "step.push_first.outcome != \"sent\"",
           "data[\"odd key\"][0].x >= -1.5e3",
           "!(tenant == null) || -data.n < 0",
           "[] == [ ]",
           "[1, [2, [3]], \"x\", null, true, data.a]",
           "\t\r\ndata\n.\na\n",
           "data.in == data.null && data.true != data.false",
           "0 == 0.0 && 10 == 1e1 && 1E+1 == 10 && 1e-1 < 1",
           "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\" != \"\"",
       }) {
    EXPECT_NO_THROW(Condition::Parse(source)) << source;
  }
}

TEST(ConditionParseTest, SourceIsKeptExactlyAndCopiesShareIt) {
  const std::string text = "  data.a   ==  1 ";
  const Condition condition = Condition::Parse(text);
  EXPECT_EQ(condition.source(), text);
  const Condition copy = condition;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(&copy.source(), &condition.source());
  EXPECT_EQ(copy, condition);
  EXPECT_FALSE(copy == Condition::Parse("data.a == 1"));
}

TEST(ConditionParseTest, RootsAreTheNamesPathsStartWithSortedOnce) {
  EXPECT_EQ(Condition::Parse("user.x == 1 && notification.seen || data.a || user.y").roots(),
            (std::vector<std::string>{"data", "notification", "user"}));
  EXPECT_EQ(Condition::Parse("steps[0].outcome == step.a.outcome && tenant").roots(),
            (std::vector<std::string>{"step", "steps", "tenant"}));
  EXPECT_TRUE(Condition::Parse("1 < 2").roots().empty());
}

TEST(ConditionParseTest, PathsAreWhatItReadsInOneFormSortedOnce) {
  EXPECT_EQ(Condition::Parse(R"(notification["read"] == false && !notification.read || data.a[2])")
                .paths(),
            (std::vector<std::string>{"data.a[2]", "notification.read"}));
  EXPECT_EQ(Condition::Parse("steps[0].outcome == step.a.outcome && tenant").paths(),
            (std::vector<std::string>{"step.a.outcome", "steps[0].outcome", "tenant"}));
  EXPECT_TRUE(Condition::Parse("1 < 2").paths().empty());
}

TEST(ConditionParseTest, RefusesMissingValuesWhereTheyAreMissing) {
  ExpectRefused("", 0, "expected a value, found the end");
  ExpectRefused("   ", 3, "expected a value, found the end");
  ExpectRefused("data ==", 7, "expected a value, found the end");
  ExpectRefused("data && || data", 8, "expected a value, found '||'");
  ExpectRefused("in", 0, "expected a value, found 'in'");
  ExpectRefused("data in", 7, "expected a value, found the end");
  ExpectRefused("!", 1, "expected a value, found the end");
  ExpectRefused("data == )", 8, "expected a value, found ')'");
  ExpectRefused("[1,]", 3, "expected a value, found ']'");
  ExpectRefused("data == .5", 8, "expected a value, found '.'");
}

TEST(ConditionParseTest, RefusesUnknownNamesAtTheirStart) {
  ExpectRefused("foo == 1", 0, "unknown name 'foo'; a path starts with data, user, tenant");
  ExpectRefused("data == bar", 8, "unknown name 'bar'");
  ExpectRefused("Data", 0, "unknown name 'Data'");
  ExpectRefused("True", 0, "unknown name 'True'");
  ExpectRefused("data == " + Repeat("x", 40), 8, "unknown name 'xxxxxxxxxxxxxxxxxxxxx...'");
}

TEST(ConditionParseTest, RefusesWhatIsNotAnOperatorAndWhatFollowsTheEnd) {
  ExpectRefused("data = 1", 5, "'=' is not an operator; compare with '=='");
  ExpectRefused("data & data", 5, "'&' is not an operator; use '&&'");
  ExpectRefused("data | data", 5, "'|' is not an operator; use '||'");
  ExpectRefused("data)", 4, "expected an operator or the end, found ')'");
  ExpectRefused("data data", 5, "expected an operator or the end, found 'data'");
  ExpectRefused("1 2", 2, "expected an operator or the end, found '2'");
  ExpectRefused("data \"x\"", 5, "expected an operator or the end, found a string");
  ExpectRefused("1abc", 1, "found 'abc'");
  ExpectRefused("data # 1", 5, "unexpected character '#'");
  ExpectRefused("data ~", 5, "unexpected character '~'");
  ExpectRefused("data\x01", 4, "unexpected character U+0001");
  ExpectRefused(std::string_view("data\0", 5), 4, "unexpected character U+0000");
  ExpectRefused("'a' == data", 0, "unexpected character '''");
}

TEST(ConditionParseTest, ComparisonsDoNotChainWithoutParentheses) {
  ExpectRefused("1 == 1 == true", 7, "'==' cannot follow '==' without parentheses");
  ExpectRefused("1 == 1 != true", 7, "'!=' cannot follow '=='");
  ExpectRefused("1 < 2 <= 3", 6, "'<=' cannot follow '<'");
  ExpectRefused("1 > 2 >= 3", 6, "'>=' cannot follow '>'");
  ExpectRefused("\"a\" in \"ab\" in \"abc\"", 12, "'in' cannot follow 'in'");
  // Operators of different levels combine by precedence.
  EXPECT_NO_THROW(Condition::Parse("1 < 2 == 2 > 1"));
  EXPECT_NO_THROW(Condition::Parse("(1 == 1) == true"));
  EXPECT_NO_THROW(Condition::Parse("\"a\" in \"ab\" == \"b\" in \"ab\""));
}

TEST(ConditionParseTest, RefusesBrokenBracketsAndPaths) {
  ExpectRefused("(data", 5, "expected ')', found the end");
  ExpectRefused("((data) || data", 15, "expected ')', found the end");
  ExpectRefused("[1, 2", 5, "expected ',' or ']', found the end");
  ExpectRefused("[1 2]", 3, "expected ',' or ']', found '2'");
  ExpectRefused("data.", 5, "expected a name after '.', found the end");
  ExpectRefused("data.1", 5, "expected a name after '.', found '1'");
  ExpectRefused("data.\"a\"", 5, "expected a name after '.', found a string");
  ExpectRefused("data[", 5, "expected an index (a whole number from 0) or a quoted name after '['");
  ExpectRefused("data[-1]", 5, "expected an index");
  ExpectRefused("data[1.5]", 5, "expected an index");
  ExpectRefused("data[1e2]", 5, "expected an index");
  ExpectRefused("data[a]", 5, "expected an index");
  ExpectRefused("data[1", 6, "expected ']', found the end");
  ExpectRefused("data[\"a\" 1]", 9, "expected ']', found '1'");
  ExpectRefused("data[18446744073709551616]", 5, "expected an index");
}

TEST(ConditionParseTest, RefusesMalformedNumbers) {
  ExpectRefused("01", 0, "a number cannot start with 0 followed by digits");
  ExpectRefused("data == 00", 8, "cannot start with 0");
  ExpectRefused("1.", 2, "expected a digit after '.'");
  ExpectRefused("1.x", 2, "expected a digit after '.'");
  ExpectRefused("1e", 2, "expected a digit in the exponent");
  ExpectRefused("1e+", 3, "expected a digit in the exponent");
  ExpectRefused("1E-x", 3, "expected a digit in the exponent");
  ExpectRefused("data == 1e999", 8, "number out of range");
  ExpectRefused("-" + Repeat("9", 400), 1, "number out of range");
}

TEST(ConditionParseTest, RefusesMalformedStringsAtTheirCause) {
  ExpectRefused("\"abc", 0, "string not closed");
  ExpectRefused("data == \"abc\\", 8, "string not closed");
  ExpectRefused("\"a\\x\"", 2, "invalid escape");
  ExpectRefused("\"a\\'\"", 2, "invalid escape");
  ExpectRefused("\"\\u12\"", 1, "\\u must be followed by four hexadecimal digits");
  ExpectRefused("\"\\u12", 1, "\\u must be followed by four hexadecimal digits");
  ExpectRefused("\"\\ud800\"", 1, "a high surrogate without a low one after it");
  ExpectRefused("\"\\ud800\\u0041\"", 1, "a high surrogate without a low one after it");
  ExpectRefused("\"\\udc00\"", 1, "a low surrogate without a high one before it");
  ExpectRefused("\"a\tb\"", 2, "control character U+0009 in a string; write it as an escape");
  ExpectRefused("\"a\nb\"", 2, "control character U+000A");
}

TEST(ConditionParseTest, ColumnsCountCodePointsAfterMultiByteCharacters) {
  // "日本" is 6 bytes and 2 characters; "😀" 4 bytes and 1 character.
  ExpectRefused("\"日本\" == x", 12, 9, "unknown name 'x'");
  ExpectRefused("\"😀\" é", 7, 5, "unexpected character U+00E9");
  ExpectRefused("\"é\" == \"é\" == 1", 13, 12, "'==' cannot follow '=='");
  ExpectRefused("data.a == \"ü\" &&", 17, 17, "expected a value, found the end");
  ExpectRefused("\"ö\\q\"", 3, 3, "invalid escape");
  ExpectRefused("data == \"😀", 8, 9, "string not closed");
}

TEST(ConditionParseTest, RefusesInvalidUtf8) {
  ExpectRefused("\"\xff\"", 1, "invalid UTF-8");
  ExpectRefused("data \xc3", 5, "invalid UTF-8");
  ExpectRefused("\"\xc3(\"", 1, "invalid UTF-8");                     // truncated
  ExpectRefused("\"\xc0\x80\"", 1, "invalid UTF-8");                  // overlong NUL
  ExpectRefused("\"\xe0\x80\xaf\"", 1, "invalid UTF-8");              // overlong '/'
  ExpectRefused("\"\xed\xa0\x80\"", 1, "invalid UTF-8");              // a surrogate
  ExpectRefused("\"\xf4\x90\x80\x80\"", 1, "invalid UTF-8");          // above U+10FFFF
  ExpectRefused("\"\x80\"", 1, "invalid UTF-8");                      // a stray continuation
  EXPECT_NO_THROW(Condition::Parse("\"\xf4\x8f\xbf\xbf\" != \"\""));  // U+10FFFF itself
}

TEST(ConditionParseTest, SourceOfAtMost1000Bytes) {
  const std::string head = "data.a == \"";
  const std::string fits = head + Repeat("x", kMaxSourceBytes - head.size() - 1) + "\"";
  ASSERT_EQ(fits.size(), 1000u);
  EXPECT_NO_THROW(Condition::Parse(fits));
  const std::string longer = head + Repeat("x", kMaxSourceBytes - head.size()) + "\"";
  ExpectRefused(longer, 1000, "longer than 1000 bytes");
  // The column of byte 1000 counts characters: 12 + 494 "é" before it.
  const std::string wide = head + "x" + Repeat("é", 495) + "\"";
  ExpectRefused(wide, 1000, 12 + 494 + 1, "longer than 1000 bytes");
}

TEST(ConditionParseTest, NestingOfAtMost32Levels) {
  EXPECT_NO_THROW(Condition::Parse(Repeat("(", 32) + "true" + Repeat(")", 32)));
  ExpectRefused(Repeat("(", 33) + "true" + Repeat(")", 33), 32, "nested deeper than 32 levels");
  EXPECT_NO_THROW(Condition::Parse(Repeat("[", 32) + Repeat("]", 32)));
  ExpectRefused(Repeat("[", 33) + Repeat("]", 33), 32, "nested deeper than 32 levels");
  EXPECT_NO_THROW(Condition::Parse(Repeat("!", 32) + "true"));
  ExpectRefused(Repeat("!", 33) + "true", 32, "nested deeper than 32 levels");
  ExpectRefused(Repeat("!(", 16) + "-data" + Repeat(")", 16), 32, "nested deeper");
  // A minus before a number is part of the literal: no level.
  EXPECT_NO_THROW(Condition::Parse(Repeat("(", 32) + "-1" + Repeat(")", 32)));
  // Hostile depths stop at the bound, long before the stack could.
  ExpectRefused(Repeat("(", 1000), 32, "nested deeper");
  ExpectRefused(Repeat("[", 1000), 32, "nested deeper");
  ExpectRefused(Repeat("!", 1000), 32, "nested deeper");
  ExpectRefused(Repeat("-", 1000), 32, "nested deeper");
  // Levels are left again: siblings do not add up.
  EXPECT_NO_THROW(
      Condition::Parse(Repeat("(" + Repeat("[", 31) + Repeat("]", 31) + ") || ", 3) + "true"));
}

TEST(ConditionParseTest, AtMost256ValuesAndOperators) {
  // 128 literals and 127 operators, then one more operator: 256.
  const std::string chain = "1" + Repeat(" || 1", 127);
  EXPECT_NO_THROW(Condition::Parse("!" + chain));
  const std::string over = chain + " || 1";  // 129 + 128 = 257
  ExpectRefused(over, over.size() - 1, "more than 256 values and operators");
  // Array literals, paths and unary operators count too; parentheses do not.
  const std::string arrays = "[" + Repeat("-data,", 127) + "data]";  // 1 + 127 + 127 + 1
  EXPECT_NO_THROW(Condition::Parse(arrays));
  ExpectRefused("!" + arrays, arrays.size() + 1 - 5, "more than 256 values and operators");
  const std::string many = Repeat("data||", 120) + Repeat("(data)||", 8) + "!data";
  const Refusal refusal = RefusalOf(many);
  EXPECT_EQ(refusal.position, many.size() - 5);  // the 257th: the last `!`
  EXPECT_NE(refusal.problem.find("more than 256"), std::string::npos);
}

TEST(ConditionParseTest, ParsingIsDeterministic) {
  for (const std::string_view source : {"data.a == 1", "(1", "\"\\ud800\""}) {
    std::string first, second;
    try {
      first = Condition::Parse(source).source();
    } catch (const SyntaxError& e) {
      first = e.what();
    }
    try {
      second = Condition::Parse(source).source();
    } catch (const SyntaxError& e) {
      second = e.what();
    }
    EXPECT_EQ(first, second);
  }
}

}  // namespace
}  // namespace chopar::condition
