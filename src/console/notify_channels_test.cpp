// The NOTIFY channel the console's SQL sends is the one db/notify_channels.hpp names.
#include "db/notify_channels.hpp"

#include <gtest/gtest.h>

#include <string>

#include "console/queries.hpp"

namespace chopar::console {
namespace {

TEST(NotifyChannels, RetryWakesTheDeliveryWorkers) {
  EXPECT_NE(std::string(queries::kRequeueDelivery.sql)
                .find(std::string("pg_notify('") + db::kDeliveriesChannel + "'"),
            std::string::npos);
}

}  // namespace
}  // namespace chopar::console
