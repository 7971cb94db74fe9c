#include "core/encoding.hpp"
#include "http/query_string.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"

namespace chopar::http {
namespace {

TEST(PercentDecodeTest, DecodesEscapesAndPlus) {
  EXPECT_EQ(core::PercentDecode("a%20b%2Fc", false), "a b/c");
  EXPECT_EQ(core::PercentDecode("a+b", true), "a b");
  EXPECT_EQ(core::PercentDecode("a+b", false), "a+b");
  EXPECT_EQ(core::PercentDecode("%e2%9c%93", false), "\xE2\x9C\x93");
  EXPECT_EQ(core::PercentDecode("", false), "");
}

TEST(PercentDecodeTest, RefusesBrokenEscapes) {
  for (const char* bad : {"%", "%2", "abc%", "%zz", "%2g", "a%-1"}) {
    EXPECT_EQ(core::PercentDecode(bad, true), std::nullopt) << bad;
  }
}

TEST(QueryParamsTest, ParsesPairsInOrder) {
  const auto query = QueryParams::Parse("limit=20&cursor=abc%3D&unread=true&flag&&x=a+b");
  EXPECT_EQ(query.Get("limit"), "20");
  EXPECT_EQ(query.Get("cursor"), "abc=");
  EXPECT_EQ(query.Get("unread"), "true");
  EXPECT_EQ(query.Get("flag"), "");
  EXPECT_EQ(query.Get("x"), "a b");
  EXPECT_EQ(query.Get("missing"), std::nullopt);
  ASSERT_EQ(query.items().size(), 5u);
  EXPECT_EQ(query.items()[0].first, "limit");
}

TEST(QueryParamsTest, FirstValueWins) { EXPECT_EQ(QueryParams::Parse("a=1&a=2").Get("a"), "1"); }

TEST(QueryParamsTest, DecodesNames) {
  EXPECT_EQ(QueryParams::Parse("user%5Fid=5").Get("user_id"), "5");
}

TEST(QueryParamsTest, MalformedEscapeIsABadRequest) {
  try {
    QueryParams::Parse("cursor=%zz");
    FAIL() << "no error";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField);
  }
}

TEST(QueryParamsTest, NulIsRefusedNamingTheParameter) {
  try {
    (void)QueryParams::Parse("limit=5&cursor=ab%00c");
    FAIL() << "accepted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.field(), "cursor");
  }
  EXPECT_THROW((void)QueryParams::Parse("a%00b=1"), core::RequestError);
}

TEST(QueryParamsTest, GetIntChecksFormAndRange) {
  const auto query = QueryParams::Parse("a=5&b=0&c=x&d=&e=5x&f=-1&g=99999999999999999999");
  EXPECT_EQ(query.GetInt("a", 1, 100), 5);
  EXPECT_EQ(query.GetInt("missing", 1, 100), std::nullopt);
  for (const char* name : {"b", "c", "d", "e", "f", "g"}) {
    try {
      (void)query.GetInt(name, 1, 100);
      ADD_FAILURE() << name << " accepted";
    } catch (const core::RequestError& e) {
      EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << name;
      EXPECT_EQ(e.field(), name);
    }
  }
}

TEST(QueryParamsTest, GetBool) {
  const auto query = QueryParams::Parse("a=true&b=0&c=yes");
  EXPECT_EQ(query.GetBool("a"), true);
  EXPECT_EQ(query.GetBool("b"), false);
  EXPECT_EQ(query.GetBool("missing"), std::nullopt);
  EXPECT_THROW((void)query.GetBool("c"), core::RequestError);
}

}  // namespace
}  // namespace chopar::http
