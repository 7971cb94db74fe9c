#include <gtest/gtest.h>

#include "hub/inbox_service.hpp"
#include "testing/request_error.hpp"

namespace chopar::hub {
namespace {

using nlohmann::json;
using testing::RequestErrorOf;

TEST(MarkReadParsing, IdsOrAll) {
  const MarkReadRequest ids = ParseMarkReadRequest({{"ids", {3, 1, 2}}});
  EXPECT_FALSE(ids.all);
  EXPECT_EQ(ids.ids, (std::vector<std::int64_t>{3, 1, 2}));
  EXPECT_TRUE(ParseMarkReadRequest({{"all", true}}).all);
  // "all": true wins over ids, whatever they are; "all": false means the ids.
  EXPECT_TRUE(ParseMarkReadRequest({{"all", true}, {"ids", "whatever"}}).all);
  const MarkReadRequest not_all = ParseMarkReadRequest({{"all", false}, {"ids", {7}}});
  EXPECT_FALSE(not_all.all);
  EXPECT_EQ(not_all.ids, (std::vector<std::int64_t>{7}));
  EXPECT_TRUE(ParseMarkReadRequest({{"ids", json::array()}}).ids.empty());
}

TEST(MarkReadParsing, BadInputNamesTheField) {
  auto field_of = [](const json& body) {
    const auto e = RequestErrorOf([&] { return ParseMarkReadRequest(body); });
    EXPECT_EQ(e.code(), core::ErrorCode::kInvalidField) << body;
    return e.field().value_or("");
  };
  EXPECT_EQ(field_of(json::object()), "ids");
  EXPECT_EQ(field_of({{"ids", "1"}}), "ids");
  EXPECT_EQ(field_of({{"ids", 3}}), "ids");
  EXPECT_EQ(field_of({{"ids", {"1"}}}), "ids");
  EXPECT_EQ(field_of({{"all", false}}), "ids");
  EXPECT_EQ(field_of({{"all", "yes"}}), "all");
  EXPECT_EQ(field_of({{"all", "yes"}, {"ids", {1}}}), "all");
  EXPECT_EQ(field_of({{"ids", std::vector<int>(1001, 1)}}), "ids");
  EXPECT_EQ(ParseMarkReadRequest({{"ids", std::vector<int>(1000, 1)}}).ids.size(), 1000u);
  EXPECT_EQ(RequestErrorOf([] { return ParseMarkReadRequest(json::array()); }).code(),
            core::ErrorCode::kInvalidJson);
}

}  // namespace
}  // namespace chopar::hub
