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

TEST_F(ConfigTest, RetentionOfNotificationsIsRefused) {
  EXPECT_EQ(FileRefusal("[retention]\nnotifications_days = 30\n"),
            "config: [retention] notifications_days must be 0: notifications are kept forever, "
            "only deliveries and sink messages are partitioned (docs/operations.md, "
            "\"Partitioned history\")");
}

}  // namespace
}  // namespace chopar::app
