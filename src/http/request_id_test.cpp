#include "http/request_id.hpp"

#include <gtest/gtest.h>

#include <set>

namespace chopar::http {
namespace {

TEST(RequestIdTest, TheClientsOwnIdIsKept) {
  EXPECT_EQ(RequestIdFor("req-42"), "req-42");
  EXPECT_EQ(RequestIdFor("0f8e1c2a-aaaa-4bbb-8ccc-0123456789ab"),
            "0f8e1c2a-aaaa-4bbb-8ccc-0123456789ab");
  EXPECT_EQ(RequestIdFor("trace:a/b+c=d@e_f.g"), "trace:a/b+c=d@e_f.g");
}

TEST(RequestIdTest, AMissingOrUnusableIdIsReplacedByANewOne) {
  const std::string too_long(129, 'a');
  for (const std::optional<std::string_view> header :
       {std::optional<std::string_view>(), std::optional<std::string_view>(""),
        std::optional<std::string_view>("has space"),
        std::optional<std::string_view>("line\nbreak"), std::optional<std::string_view>("quote\"d"),
        std::optional<std::string_view>(too_long)}) {
    const std::string id = RequestIdFor(header);
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  }
}

TEST(RequestIdTest, NewIdsDiffer) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(RequestIdFor(std::nullopt));
  EXPECT_EQ(ids.size(), 1000u);
}

}  // namespace
}  // namespace chopar::http
