// Black-box, real clock (issue 4, acceptance item 3): the built `chopar serve`
// fires a `* * * * *` schedule within a second of each minute, never before
// it, and an occurrence missed while the process was killed with SIGKILL
// across its minute — while its firing, written ahead of the minute, waited
// for it in an open transaction — fires exactly once after the restart.
// Nothing is simulated, so the test takes two to three minutes of real time.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "blackbox_support.hpp"
#include "core/time_format.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using WallClock = std::chrono::system_clock;

constexpr char kKey[] = "tick";
constexpr char kApiKey[] = "realclock-key";

long long UnixSeconds(core::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

double UnixSecondsFraction(core::TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

class ScheduleRealClock : public testing::ServeBlackBox {
 protected:
  ScheduleRealClock() : ServeBlackBox(kApiKey) {}

  static std::string DedupKey(core::TimePoint due) {
    return std::string("schedule:") + kKey + ":" + std::to_string(UnixSeconds(due));
  }

  // When the occurrence due at `due` was fired (its notification's
  // created_at: the due instant itself for a firing written ahead of it,
  // else the firing transaction's start), in Unix seconds; nullopt while it
  // has not fired.
  std::optional<double> FiredAt(core::TimePoint due) const {
    const std::string text = db_->Scalar(
        "SELECT extract(epoch FROM created_at)::text FROM chopar.notifications WHERE dedup_key = "
        "'" +
        DedupKey(due) + "'");
    if (text.empty()) return std::nullopt;
    return std::stod(text);
  }

  std::optional<double> WaitFired(core::TimePoint due, std::chrono::milliseconds timeout) const {
    std::optional<double> fired;
    WaitUntil([&] { return (fired = FiredAt(due)).has_value(); }, timeout);
    return fired;
  }

  // When the occurrence's delivery was sent, in Unix seconds ("" before).
  std::string SentAt(core::TimePoint due) const {
    return db_->Scalar(
        "SELECT extract(epoch FROM d.sent_at)::text FROM chopar.deliveries d JOIN "
        "chopar.notifications n ON n.id = d.notification_id WHERE n.dedup_key = '" +
        DedupKey(due) + "'");
  }

  // Whether a firing transaction is written and waiting for its instant:
  // idle in a transaction whose last statement advanced the schedules.
  bool FiringWaits() const {
    return db_->Count(
               "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
               "AND state = 'idle in transaction' AND query LIKE '%skipped_count%'") == 1;
  }

  // Notifications, deliveries and sink messages of one occurrence.
  std::int64_t Count(const std::string& what, core::TimePoint due) const {
    const std::string of =
        "(SELECT id FROM chopar.notifications WHERE dedup_key = '" + DedupKey(due) + "')";
    if (what == "notifications")
      return db_->Count("SELECT count(*) FROM chopar.notifications WHERE id IN " + of);
    if (what == "sent") {
      return db_->Count(
          "SELECT count(*) FROM chopar.deliveries WHERE status = 'sent' AND notification_id IN " +
          of);
    }
    return db_->Count(
        "SELECT count(*) FROM chopar.sink_messages m JOIN chopar.deliveries d ON d.id = "
        "m.delivery_id "
        "WHERE d.notification_id IN " +
        of);
  }
};

TEST_F(ScheduleRealClock, FiresEachMinuteOnTimeAndOnceAfterKill9) {
  auto serve = StartServe("serve-1.log");
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api_->Call("PUT", "/v1/users/1", {{"email", "soat@example.uz"}}).status, 200);
  const auto put = api_->Call("PUT", std::string("/v1/schedules/") + kKey,
                              {{"user_id", 1},
                               {"cron", "* * * * *"},
                               {"notification", {{"type", "test.tick"}, {"title", "Tik"}}}});
  ASSERT_EQ(put.status, 200) << put.body;
  const auto first =
      core::ParseRfc3339(nlohmann::json::parse(put.body)["next_fire_at"].get<std::string>());
  ASSERT_TRUE(first.has_value()) << put.body;
  ASSERT_EQ(UnixSeconds(*first) % 60, 0) << put.body;
  ASSERT_LE(*first - WallClock::now(), 60s) << put.body;

  // 1. The next minute fires within a second of the boundary, with the due
  // instant in its data.
  const auto fired_first = WaitFired(
      *first,
      std::chrono::duration_cast<std::chrono::milliseconds>(*first - WallClock::now()) + 30s);
  ASSERT_TRUE(fired_first.has_value()) << serve->Output();
  EXPECT_GE(*fired_first, UnixSecondsFraction(*first));
  EXPECT_LT(*fired_first - UnixSecondsFraction(*first), 1.0);
  EXPECT_EQ(db_->Scalar("SELECT data->>'due_at' FROM chopar.notifications WHERE dedup_key = '" +
                        DedupKey(*first) + "'"),
            core::FormatRfc3339(*first));
  // Sent within a second of the minute, and not before it.
  ASSERT_TRUE(WaitUntil([&] { return !SentAt(*first).empty(); }, 30s)) << serve->Output();
  EXPECT_GE(std::stod(SentAt(*first)), UnixSecondsFraction(*first));
  EXPECT_LT(std::stod(SentAt(*first)) - UnixSecondsFraction(*first), 1.0);

  // 2. kill -9 just before the following minute, while its firing is
  // written and waits for it (prepare_seconds 3); start again after it.
  const core::TimePoint missed = *first + 60s;
  std::this_thread::sleep_until(missed - 1500ms);
  EXPECT_TRUE(WaitUntil([&] { return FiringWaits(); }, 1000ms))
      << "no firing waited for the minute: the kill would not come at the worst moment";
  EXPECT_FALSE(FiredAt(missed).has_value()) << "visible before its minute";
  serve->Signal(SIGKILL);
  serve->Wait(10s);
  ASSERT_LT(WallClock::now(), missed)
      << "the kill came too late to miss the minute; the machine stalled";
  std::this_thread::sleep_until(missed + 2s);
  const double restarted = UnixSecondsFraction(WallClock::now());
  serve = StartServe("serve-2.log");
  ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve->Output();

  // The missed occurrence fires once, late, by the restarted process.
  const auto fired_missed = WaitFired(missed, 30s);
  ASSERT_TRUE(fired_missed.has_value()) << serve->Output();
  EXPECT_GE(*fired_missed, restarted);
  EXPECT_TRUE(WaitUntil([&] { return Count("sent", missed) == 1; }, 30s)) << serve->Output();
  EXPECT_EQ(Count("notifications", missed), 1);
  EXPECT_EQ(Count("sink", missed), 1);

  // 3. Back on time at the next minute; nothing fired twice, nothing skipped.
  const core::TimePoint after = missed + 60s;
  const auto fired_after = WaitFired(
      after, std::chrono::duration_cast<std::chrono::milliseconds>(after - WallClock::now()) + 30s);
  ASSERT_TRUE(fired_after.has_value()) << serve->Output();
  EXPECT_GE(*fired_after, UnixSecondsFraction(after));
  EXPECT_LT(*fired_after - UnixSecondsFraction(after), 1.0);
  EXPECT_TRUE(WaitUntil([&] { return Count("sent", after) == 1; }, 30s)) << serve->Output();
  EXPECT_EQ(db_->Count(
                "SELECT count(*) FROM chopar.notifications WHERE dedup_key LIKE 'schedule:tick:%'"),
            3);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.sink_messages"), 3);
  const auto state =
      nlohmann::json::parse(api_->Call("GET", std::string("/v1/schedules/") + kKey).body);
  EXPECT_EQ(state["skipped_count"], 0) << state.dump();
  EXPECT_EQ(state["last_due_at"], core::FormatRfc3339(after)) << state.dump();
  std::cout << "fired " << *fired_first - UnixSecondsFraction(*first) << " s and "
            << *fired_after - UnixSecondsFraction(after)
            << " s after their minutes; the missed one "
            << *fired_missed - UnixSecondsFraction(missed) << " s late, "
            << *fired_missed - restarted << " s after the restart\n";

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

}  // namespace
}  // namespace chopar
