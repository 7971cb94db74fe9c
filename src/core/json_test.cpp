#include "core/json.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/request_error.hpp"

namespace chopar::core {
namespace {

std::string Nested(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(JsonTest, ParsesWhatIsWithinTheDepthLimit) {
  EXPECT_EQ(ParseJson(R"({"a": [1, {"b": "c"}]})")["a"][1]["b"], "c");
  EXPECT_NO_THROW(ParseJson(Nested(kMaxJsonDepth)));
}

TEST(JsonTest, DeeplyNestedJsonIsInvalidJsonNotAStackOverflow) {
  // A 1 MiB body nests about half a million levels; copying or dumping that
  // would recurse once per level.
  const std::string deep = Nested(512 * 1024);
  try {
    (void)ParseJson(deep);
    FAIL() << "accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidJson);
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)ParseJson(Nested(kMaxJsonDepth + 1)), RequestError);
  EXPECT_TRUE(ParseJsonOrDiscarded(deep).is_discarded());
}

TEST(JsonTest, BracketsInsideStringsDoNotCount) {
  const std::string text = R"({"s": ")" + std::string(1000, '[') + R"(\"[[[", "t": "\\"})";
  EXPECT_EQ(ParseJson(text)["t"], "\\");
}

// The parser reports a number beyond a double as out_of_range, not as a
// parse error: it must be invalid_json all the same (found by fuzzing).
TEST(JsonTest, ANumberBeyondADoubleIsInvalidJson) {
  for (const char* text : {R"({"user_id": 1e400})", R"([-11e4009])"}) {
    try {
      (void)ParseJson(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidJson) << text;
    }
    EXPECT_TRUE(ParseJsonOrDiscarded(text).is_discarded()) << text;
  }
}

TEST(JsonTest, MalformedJsonIsInvalidJsonWithTheParsersReason) {
  try {
    (void)ParseJson("{\"a\": ");
    FAIL() << "accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidJson);
    EXPECT_EQ(std::string(e.what()).rfind("malformed JSON: ", 0), 0u) << e.what();
  }
  EXPECT_TRUE(ParseJsonOrDiscarded("nope").is_discarded());
  EXPECT_TRUE(ParseJsonOrDiscarded("").is_discarded());
}

TEST(JsonTest, ContainsNulFindsItInKeysAndStringsAtAnyDepth) {
  EXPECT_FALSE(ContainsNul(ParseJson(R"({"a": ["b", {"c": 1}]})")));
  EXPECT_TRUE(ContainsNul(ParseJson(R"({"a": ["b", {"c": "x\u0000"}]})")));
  EXPECT_TRUE(ContainsNul(ParseJson(R"({"a": {"k\u0000": 1}})")));
  EXPECT_TRUE(ContainsNul(ParseJson(R"("\u0000")")));
}

}  // namespace
}  // namespace chopar::core
