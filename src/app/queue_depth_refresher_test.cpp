// How long the queue-depth refresher waits between counts.

#include "app/queue_depth_refresher.hpp"

#include <gtest/gtest.h>

namespace chopar::app {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(QueueDepthRefresherTest, AQuickCountIsRepeatedEveryPeriod) {
  EXPECT_EQ(RefreshInterval(seconds(1), milliseconds(2)), seconds(1));
  EXPECT_EQ(RefreshInterval(seconds(1), milliseconds(52)), seconds(1));
}

TEST(QueueDepthRefresherTest, ASlowCountWaitsNineteenTimesAsLongAsItTook) {
  // A broadcast's two million queued deliveries: about 270 ms a count.
  EXPECT_EQ(RefreshInterval(seconds(1), milliseconds(270)), milliseconds(5130));
  EXPECT_EQ(RefreshInterval(seconds(1), seconds(2)), seconds(38));
}

}  // namespace
}  // namespace chopar::app
