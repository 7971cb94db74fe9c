// The NOTIFY channels hub's SQL sends are the ones db/notify_channels.hpp names.
#include "db/notify_channels.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hub/queries.hpp"

namespace chopar::hub {
namespace {

bool Notifies(const db::Query& query, const char* channel) {
  return std::string(query.sql).find(std::string("pg_notify('") + channel + "'") !=
         std::string::npos;
}

TEST(NotifyChannels, HubQueriesNotifyTheNamedChannels) {
  EXPECT_TRUE(Notifies(queries::kInsertNotifications, db::kDeliveriesChannel));
  EXPECT_TRUE(Notifies(queries::kInsertNotifications, db::kInboxChannel));
  EXPECT_TRUE(Notifies(queries::kInsertNotifications, db::kWorkflowsChannel));
  EXPECT_TRUE(Notifies(queries::kWakeInbox, db::kInboxChannel));
  EXPECT_TRUE(Notifies(queries::kWakeSnoozeReturners, db::kSnoozesChannel));
  EXPECT_TRUE(Notifies(queries::kRequestErasures, db::kErasuresChannel));
}

}  // namespace
}  // namespace chopar::hub
