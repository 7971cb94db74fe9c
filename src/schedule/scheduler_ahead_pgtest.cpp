// Firings prepared ahead of their instant (Scheduler::FireAhead): written in
// a transaction held open until the clock reaches the instant, invisible
// before it, rolled back by Stop(), and split between schedulers without an
// occurrence fired twice.

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "schedule/schedule_pgtest_fixture.hpp"
#include "testing/child_process.hpp"

namespace chopar::schedule {
namespace {

using namespace std::chrono_literals;
using chopar::testing::WaitUntil;

class SchedulerAheadTest : public SchedulePgTest {
 protected:
  // How many firing transactions are written and waiting for their instant,
  // by the schedulers' gauge (set once a firing is done claiming).
  int PreparedFirings() {
    return static_cast<int>(metrics_.GetGauge("chopar_schedule_firings_waiting", "").Value());
  }
  // Schedules due at `instant` that no transaction holds. It locks what it
  // counts, for a moment: never while a scheduler claims.
  std::int64_t Unlocked(const char* instant) {
    return db_->Count(std::string("SELECT count(*) FROM (SELECT 1 FROM chopar.schedules WHERE "
                                  "next_fire_at = '") +
                      instant + "' FOR UPDATE SKIP LOCKED) s");
  }
  std::int64_t Deliveries() { return db_->Count("SELECT count(*) FROM chopar.deliveries"); }

  // "pill-1" of user 1, due at 11:00, and the scheduler firing it ahead
  // from 10:59:58, in a thread; `prepared` tells whether it got to wait.
  std::future<SchedulerRunStats> FireElevenAhead(bool& prepared) {
    AddUser(1, "UTC");
    Put("pill-1", Body(1, "0 11 * * *"));
    clock_.Set(At("2026-10-20T10:59:58Z"));
    auto ahead = std::async(std::launch::async,
                            [this] { return scheduler_->FireAhead(At("2026-10-20T11:00:00Z")); });
    prepared = WaitUntil([&] { return PreparedFirings() == 1; }, 20s);
    return ahead;
  }
};

TEST_F(SchedulerAheadTest, AppearsAtItsInstantAndNotBefore) {
  AddUser(2, "UTC");
  Put("late", Body(2, "57 10 * * *"));  // due 10:57, overdue below
  bool prepared = false;
  auto ahead = FireElevenAhead(prepared);
  if (!prepared) {
    scheduler_->Stop();  // so the future's destructor does not wait for 11:00
    FAIL() << "the firing was not written ahead";
  }

  // Written, locked, and not there for anyone else.
  EXPECT_EQ(ahead.wait_for(100ms), std::future_status::timeout);
  EXPECT_EQ(Notifications(), 0);
  EXPECT_EQ(Deliveries(), 0);
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T11:00:00Z");
  EXPECT_EQ(Unlocked("2026-10-20T11:00:00Z"), 0);

  // What is already overdue is not held back to the instant: RunOnce fires
  // it meanwhile.
  const SchedulerRunStats overdue = scheduler_->RunOnce();
  EXPECT_EQ(overdue.fired, 1);
  EXPECT_EQ(FiredDueAts("late"), "2026-10-20T10:57:00Z");
  EXPECT_EQ(FiredDueAts("pill-1"), "");

  clock_.Set(At("2026-10-20T11:00:00Z"));
  ASSERT_EQ(ahead.wait_for(20s), std::future_status::ready);
  const SchedulerRunStats fired = ahead.get();
  EXPECT_EQ(fired.claimed, 1);
  EXPECT_EQ(fired.fired, 1);
  EXPECT_EQ(fired.batches, 1);

  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T11:00:00Z");
  EXPECT_EQ(db_->Scalar("SELECT chopar.api_time(created_at) FROM chopar.notifications WHERE "
                        "data->>'schedule' = 'pill-1'"),
            "2026-10-20T11:00:00Z");
  EXPECT_EQ(db_->Scalar("SELECT string_agg(chopar.api_time(d.next_attempt_at), ',') FROM "
                        "chopar.deliveries d JOIN chopar.notifications n ON n.id = "
                        "d.notification_id WHERE n.data->>'schedule' = 'pill-1'"),
            "2026-10-20T11:00:00Z");
  EXPECT_EQ(NextFire("pill-1"), "2026-10-21T11:00:00Z");
  EXPECT_EQ(Column("pill-1", "chopar.api_time(last_fired_at)"), "2026-10-20T11:00:00Z");

  // Nothing of that instant is left to fire.
  EXPECT_EQ(scheduler_->RunOnce().claimed, 0);
  EXPECT_EQ(Notifications(), 2);
}

TEST_F(SchedulerAheadTest, StopBeforeTheInstantRollsBackAndTheOccurrenceStillFires) {
  bool prepared = false;
  auto ahead = FireElevenAhead(prepared);
  EXPECT_TRUE(prepared);
  scheduler_->Stop();
  ASSERT_EQ(ahead.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(ahead.get().claimed, 0);

  EXPECT_EQ(Notifications(), 0);
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T11:00:00Z");
  EXPECT_EQ(Unlocked("2026-10-20T11:00:00Z"), 1);

  // Another scheduler (a restarted process) fires it, once, late.
  clock_.Set(At("2026-10-20T11:00:01Z"));
  Scheduler next(*pool_, clock_, metrics_);
  EXPECT_EQ(next.RunOnce().fired, 1);
  EXPECT_EQ(next.RunOnce().claimed, 0);
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T11:00:00Z");
  EXPECT_EQ(db_->Scalar("SELECT chopar.api_time(created_at) FROM chopar.notifications"),
            "2026-10-20T11:00:01Z");
}

TEST_F(SchedulerAheadTest, AConnectionLostWhileWaitingLosesNothing) {
  bool prepared = false;
  auto ahead = FireElevenAhead(prepared);
  EXPECT_TRUE(prepared);
  // The database ends the waiting session (a restart, a failover, an
  // administrator): its firings are rolled back with it.
  EXPECT_EQ(db_->Count("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                       "datname = current_database() AND state = 'idle in transaction'"),
            1);
  clock_.Set(At("2026-10-20T11:00:00Z"));
  EXPECT_ANY_THROW(ahead.get());  // the commit fails; the loop would log it and step again

  EXPECT_EQ(Notifications(), 0);
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T11:00:00Z");
  clock_.Set(At("2026-10-20T11:00:00.200Z"));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(scheduler_->RunOnce().claimed, 0);
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T11:00:00Z");
}

TEST_F(SchedulerAheadTest, SchedulersPreparingTheSameInstantFireEachOccurrenceOnce) {
  PutMany(1500, 100, "0 11 * * *", "latest");
  clock_.Set(At("2026-10-20T10:59:57Z"));

  RacingSchedulers racing(db_->url(), clock_, metrics_);
  auto [fa, fb] = racing.Start(
      [](Scheduler& scheduler) { return scheduler.FireAhead(At("2026-10-20T11:00:00Z")); });
  // Each is done claiming: it waits for the instant with what it wrote, or
  // it found every row taken and returned. Then every schedule is claimed.
  const auto waiting = [](std::future<SchedulerRunStats>& f) {
    return f.wait_for(0s) == std::future_status::timeout;
  };
  EXPECT_TRUE(
      WaitUntil([&] { return PreparedFirings() == int(waiting(fa)) + int(waiting(fb)); }, 60s));
  EXPECT_EQ(Unlocked("2026-10-20T11:00:00Z"), 0);
  EXPECT_EQ(Notifications(), 0);
  clock_.Set(At("2026-10-20T11:00:00Z"));
  ASSERT_EQ(fa.wait_for(60s), std::future_status::ready);
  ASSERT_EQ(fb.wait_for(60s), std::future_status::ready);
  const SchedulerRunStats ra = fa.get(), rb = fb.get();

  ExpectEachFiredOnce(ra, rb, 1500, 1500);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE created_at = "
                       "'2026-10-20T11:00:00Z'"),
            1500);
  EXPECT_EQ(
      db_->Count(
          "SELECT count(*) FROM chopar.schedules WHERE next_fire_at = '2026-10-21T11:00:00Z'"),
      1500);
}

TEST_F(SchedulerAheadTest, TheLoopPreparesTheNextInstantAndCommitsAtIt) {
  AddUser(1, "UTC");
  Put("pill-1", Body(1, "0 11 * * *"));
  clock_.Set(At("2026-10-20T10:59:58Z"));
  scheduler_->Start();  // prepare_seconds 3 (the default): 11:00 is close enough
  EXPECT_TRUE(WaitUntil([&] { return PreparedFirings() == 1; }, 20s));
  EXPECT_EQ(Notifications(), 0);

  clock_.Set(At("2026-10-20T11:00:00Z"));
  ASSERT_TRUE(WaitUntil([&] { return Notifications() == 1; }, 20s));
  scheduler_->Stop();
  EXPECT_EQ(db_->Scalar("SELECT chopar.api_time(created_at) FROM chopar.notifications"),
            "2026-10-20T11:00:00Z");
  EXPECT_EQ(NextFire("pill-1"), "2026-10-21T11:00:00Z");
}

}  // namespace
}  // namespace chopar::schedule
