// [retention]: what history is kept, checked when the configuration loads.
#include <gtest/gtest.h>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

TEST_F(ConfigTest, RetentionKeepsEverythingByDefault) {
  const Config c = Load("");
  EXPECT_EQ(c.retention.notifications_days, 0);
  EXPECT_EQ(c.retention.deliveries_days, 0);
}

TEST_F(ConfigTest, RetentionDaysMustNotBeNegative) {
  EXPECT_EQ(FileRefusal("[retention]\ndeliveries_days = -1\n"),
            "config: [retention] deliveries_days must be >= 0");
  EXPECT_EQ(FileRefusal("[retention]\nnotifications_days = -7\n"),
            "config: [retention] notifications_days must be >= 0");
}

TEST_F(ConfigTest, RetentionOfNotificationsOutlivesTheirDeliveries) {
  const std::string refusal =
      "config: [retention] notifications_days must be 0, or more than deliveries_days (not 0) "
      "+ 7 (the longest digest window): deliveries are dropped before their notifications "
      "(docs/operations.md, \"Partitioned history\")";
  EXPECT_EQ(FileRefusal("[retention]\nnotifications_days = 30\n"), refusal);
  EXPECT_EQ(FileRefusal("[retention]\nnotifications_days = 37\ndeliveries_days = 30\n"), refusal);
  const Config c = Load("[retention]\nnotifications_days = 38\ndeliveries_days = 30\n");
  EXPECT_EQ(c.retention.notifications_days, 38);
}

}  // namespace
}  // namespace chopar::app
