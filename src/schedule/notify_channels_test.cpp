// The NOTIFY channel the schedule SQL sends is the one db/notify_channels.hpp names.
#include "db/notify_channels.hpp"

#include <gtest/gtest.h>

#include <string>

#include "schedule/queries.hpp"

namespace chopar::schedule {
namespace {

TEST(NotifyChannels, NotifySchedulersSendsTheSchedulesChannel) {
  const std::string sql = queries::kNotifySchedulers.sql;
  EXPECT_NE(sql.find(std::string("pg_notify('") + db::kSchedulesChannel + "'"), std::string::npos)
      << sql;
}

}  // namespace
}  // namespace chopar::schedule
