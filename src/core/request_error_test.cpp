#include "core/request_error.hpp"

#include <gtest/gtest.h>

namespace chopar::core {
namespace {

TEST(RequestErrorTest, PrefixErrorNamesWhereTheNestedRequestIs) {
  const RequestError e =
      PrefixError(InvalidField("cron", "cron: bad"), "schedules[3].", "schedules[3]");
  EXPECT_EQ(e.field(), "schedules[3].cron");
  EXPECT_STREQ(e.what(), "schedules[3]: cron: bad");
  EXPECT_EQ(e.code(), ErrorCode::kInvalidField);
}

TEST(RequestErrorTest, PrefixErrorAppliesEachPartOnlyWhereItHasSomethingToPrefix) {
  const RequestError e = PrefixError(UserNotFound(7), "notification.", "");
  EXPECT_EQ(e.field(), "notification.user_id");
  EXPECT_STREQ(e.what(), "user 7 does not exist");
  const RequestError unfielded = PrefixError(NotFound("gone"), "x.", "x");
  EXPECT_EQ(unfielded.field(), std::nullopt);
  EXPECT_STREQ(unfielded.what(), "x: gone");
  EXPECT_EQ(unfielded.code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace chopar::core
