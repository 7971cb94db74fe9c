// The NOTIFY channel the broadcast SQL sends is the one db/notify_channels.hpp names.
#include "db/notify_channels.hpp"

#include <gtest/gtest.h>

#include <string>

#include "broadcast/queries.hpp"

namespace chopar::broadcast {
namespace {

TEST(NotifyChannels, InsertBroadcastSendsTheBroadcastsChannel) {
  const std::string sql = queries::kInsertBroadcast.sql;
  EXPECT_NE(sql.find(std::string("pg_notify('") + db::kBroadcastsChannel + "'"), std::string::npos)
      << sql;
}

}  // namespace
}  // namespace chopar::broadcast
