// The hourly-limit count (queries/count_rate_window.sql) on real PostgreSQL:
// exact across the weekly partitions of `deliveries` (created_at) whatever
// the claim time.

#include <gtest/gtest.h>

#include "delivery/claim.hpp"
#include "delivery/queries.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"

namespace chopar::delivery {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class RateWindowTest : public testing::DeliveryPgTest {
 protected:
  // A notification of `user` with one email delivery created at `created`
  // and, when `claimed` is given, sent then; else queued, due at `due`.
  std::int64_t AddDelivery(std::int64_t user, core::TimePoint created,
                           std::optional<core::TimePoint> claimed,
                           std::optional<core::TimePoint> due = std::nullopt) {
    const std::string at = Literal(created);
    const auto n = Sql("INSERT INTO notifications (user_id, type, title, created_at) VALUES (" +
                       std::to_string(user) + ", 'task.due', 'Task due', " + at + ") RETURNING id")
                       .Int(0, 0);
    const std::string status = claimed ? "'sent'" : "'queued'";
    const std::string claimed_at = claimed ? Literal(*claimed) : "NULL";
    return Sql("INSERT INTO deliveries (notification_id, user_id, channel, status, "
               "next_attempt_at, "
               "claimed_at, sent_at, created_at, updated_at) VALUES (" +
               std::to_string(n) + ", " + std::to_string(user) + ", 'email', " + status + ", " +
               Literal(due.value_or(created)) + ", " + claimed_at + ", " + claimed_at + ", " + at +
               ", " + at + ") RETURNING id")
        .Int(0, 0);
  }
  static std::string Literal(core::TimePoint t) { return "'" + SqlTime(t) + "'::timestamptz"; }

  // What count_rate_window finds for (user 1, email) at `now`, and what a
  // plain count of the same rows finds.
  std::int64_t Counted(core::TimePoint now) {
    auto tx = pool_->Begin("count_rate_window");
    const auto r =
        tx.Exec(queries::kCountRateWindow, "{1}", "{email}", SqlTime(now - hours(1)), "{}");
    tx.Commit();
    return r.Int(0, "in_window");
  }
  std::int64_t Expected(core::TimePoint now) {
    return Count(
        "SELECT count(*) FROM deliveries WHERE user_id = 1 AND channel = 'email' "
        "AND status IN ('sent', 'sending') AND claimed_at > " +
        Literal(now - hours(1)));
  }

  testing::TestChannel channel_;
};

// Monday 2026-10-26 00:00 UTC, a partition boundary (chopar.history_week_start).
core::TimePoint Monday() { return *core::ParseRfc3339("2026-10-26T00:00:00Z"); }

TEST_F(RateWindowTest, HourlyLimitHoldsForADeliveryCreatedWeeksAgoAndClaimedNow) {
  AddUser(1);
  WorkerSettings settings;
  settings.hourly_limits[core::ChannelKind::kEmail] = 1;
  settings.lease = hours(2);  // still being sent at the second claim, not taken back
  // A delivery created three weeks ago whose retry falls due now.
  const core::TimePoint now = T0();
  const auto old = AddDelivery(1, now - days(21), std::nullopt, now - minutes(10));
  const ChannelSet channels = ChannelSet::AllTo(channel_);

  EXPECT_EQ(ClaimBatch(*pool_, now - minutes(10), settings, channels).to_send.size(), 1u);
  const auto fresh = Notify(1, {"email"});
  const ClaimResult second = ClaimBatch(*pool_, now, settings, channels);

  EXPECT_EQ(Field(old, "status"), "sending");
  EXPECT_TRUE(second.to_send.empty());
  EXPECT_EQ(Field(fresh[0], "status"), "skipped");
  EXPECT_EQ(Field(fresh[0], "last_error"), "hourly limit 1");
}

TEST_F(RateWindowTest, CountIsExactAroundTheWeekBoundary) {
  AddUser(1);
  AddUser(2);
  const core::TimePoint monday = Monday();
  const core::TimePoint created[] = {monday - days(20),
                                     monday - days(7),
                                     monday - minutes(30),
                                     monday - std::chrono::microseconds(1),
                                     monday,
                                     monday + minutes(40)};
  const core::TimePoint claimed[] = {
      monday - minutes(50), monday - minutes(5),  monday,
      monday + minutes(10), monday + minutes(45), monday + minutes(70),
      monday + minutes(100)};
  for (const auto c : created) {
    for (const auto at : claimed) {
      if (at < c) continue;
      AddDelivery(1, c, at);
      AddDelivery(2, c, at);  // another user's: never counted for user 1
    }
    AddDelivery(1, c, std::nullopt);  // queued: never counted
  }
  for (const auto now : {monday - minutes(20), monday + seconds(1), monday + minutes(30),
                         monday + minutes(59), monday + minutes(61), monday + minutes(90),
                         monday + hours(2), monday + days(7) + minutes(30)}) {
    SCOPED_TRACE(SqlTime(now));
    EXPECT_EQ(Counted(now), Expected(now));
  }
  EXPECT_GT(Expected(monday + minutes(90)), 0);
}

}  // namespace
}  // namespace chopar::delivery
