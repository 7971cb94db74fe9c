#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "core/metrics.hpp"
#include "db/errors.hpp"
#include "db/pool.hpp"
#include "schedule/queries.hpp"
#include "schedule/schedule_pgtest_fixture.hpp"
#include "testing/query_plans.hpp"

namespace chopar::schedule {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class SchedulerTest : public SchedulePgTest {};

TEST_F(SchedulerTest, FiresOncePerOccurrence) {
  AddUser(1, "Asia/Tashkent");
  const auto put = Put("pill-1", Body(1, "5 18 * * *"));
  EXPECT_EQ(put.next_fire_at, core::ParseRfc3339("2026-10-20T13:05:00Z"));

  clock_.Set(At("2026-10-20T13:04:59Z"));
  EXPECT_EQ(scheduler_->RunOnce().claimed, 0);
  EXPECT_EQ(Notifications(), 0);

  clock_.Set(At("2026-10-20T13:05:00.300Z"));
  const SchedulerRunStats first = scheduler_->RunOnce();
  EXPECT_EQ(first.claimed, 1);
  EXPECT_EQ(first.fired, 1);
  const SchedulerRunStats again = scheduler_->RunOnce();
  EXPECT_EQ(again.claimed, 0);
  EXPECT_EQ(again.fired, 0);

  EXPECT_EQ(Notifications(), 1);
  EXPECT_EQ(db_->Scalar("SELECT dedup_key FROM chopar.notifications"),
            "schedule:pill-1:" + std::to_string(1792501500));  // 2026-10-20T13:05:00Z
  EXPECT_EQ(db_->Scalar("SELECT data::text FROM chopar.notifications"),
            R"({"due_at": "2026-10-20T13:05:00Z", "pill_id": 17, "schedule": "pill-1"})");
  EXPECT_EQ(
      db_->Scalar(
          "SELECT type || '|' || title || '|' || body || '|' || link FROM chopar.notifications"),
      "pill.reminder|Sitramon|18:00 dori vaqti|/pills/17");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email'"), 1);
  EXPECT_EQ(NextFire("pill-1"), "2026-10-21T13:05:00Z");
  EXPECT_EQ(Column("pill-1", "chopar.api_time(last_due_at)"), "2026-10-20T13:05:00Z");
  EXPECT_EQ(Column("pill-1", "chopar.api_time(last_fired_at)"), "2026-10-20T13:05:00Z");
  EXPECT_EQ(Column("pill-1", "skipped_count"), "0");

  clock_.Set(At("2026-10-21T13:05:00Z"));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T13:05:00Z,2026-10-21T13:05:00Z");
}

// A late event for a user being erased (docs/privacy.md) is dropped: a
// schedule of the user that comes due fires nothing, the other user's does.
TEST_F(SchedulerTest, AScheduleOfAUserBeingErasedDoesNotFire) {
  AddUser(1, "Asia/Tashkent");
  AddUser(2, "Asia/Tashkent");
  Put("pill-1", Body(1, "5 18 * * *"));
  Put("pill-2", Body(2, "5 18 * * *"));
  db_->Scalar("UPDATE chopar.users SET erasing = true WHERE id = 1 RETURNING id");

  clock_.Set(At("2026-10-20T13:05:00.300Z"));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(Notifications(), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 1"), 0);
}

TEST_F(SchedulerTest, ScheduleThatCannotBeEvaluatedIsParkedAndTheOthersFire) {
  AddUser(1, "Asia/Tashkent");
  Put("pill-1", Body(1, "5 18 * * *"));
  Put("broken", Body(1, "5 18 * * *"));
  // A zone this process's tzdata does not know (the API refuses it; a newer
  // tzdata elsewhere might have written it).
  ASSERT_EQ(
      db_->Scalar("UPDATE chopar.schedules SET timezone = 'Mars/Olympus_Mons' WHERE key = 'broken' "
                  "RETURNING key"),
      "broken");

  clock_.Set(At("2026-10-20T13:05:00Z"));
  const SchedulerRunStats stats = scheduler_->RunOnce();

  EXPECT_EQ(stats.claimed, 2);
  EXPECT_EQ(stats.fired, 1);
  EXPECT_EQ(stats.failed, 1);
  EXPECT_EQ(NextFire("pill-1"), "2026-10-21T13:05:00Z");
  EXPECT_EQ(Column("broken", "next_fire_at IS NULL"), "t");
  EXPECT_NE(Column("broken", "last_error").find("Mars/Olympus_Mons"), std::string::npos)
      << Column("broken", "last_error");
  EXPECT_EQ(Column("broken", "last_fired_at IS NULL"), "t");
  EXPECT_EQ(scheduler_->RunOnce().claimed, 0) << "a parked schedule is not claimed again";
}

TEST_F(SchedulerTest, TwoSchedulersRacingFireEachOccurrenceExactlyOnce) {
  PutMany(1500, 100, "* * * * *", "all");
  clock_.Advance(minutes(3));  // three occurrences of each are due: 4500 notifications

  RacingSchedulers racing(db_->url(), clock_, metrics_);
  auto [fa, fb] = racing.Start([](Scheduler& scheduler) {
    SchedulerRunStats total;
    // Each RunOnce stops early when the other holds the rest; keep going
    // until nothing is due.
    while (scheduler.LookUpDue().due > 0) {
      total += scheduler.RunOnce();
    }
    return total;
  });
  const SchedulerRunStats ra = fa.get(), rb = fb.get();

  ExpectEachFiredOnce(ra, rb, 1500, 4500);
  EXPECT_EQ(
      db_->Count(
          "SELECT count(*) FROM chopar.schedules WHERE next_fire_at = '2026-10-20T10:04:00Z'"),
      1500);
}

TEST_F(SchedulerTest, UserMovingZonesMovesTheSchedule) {
  AddUser(1, "Europe/Berlin");
  Put("follows", Body(1, "5 18 * * *"));
  Put("pinned", Body(1, "5 18 * * *", "Europe/Berlin"));
  EXPECT_EQ(NextFire("follows"), "2026-10-20T16:05:00Z");

  // Through the user service, as the API does it.
  PutUser(1, {{"timezone", "Asia/Tashkent"}});
  EXPECT_EQ(NextFire("follows"), "2026-10-20T13:05:00Z");
  EXPECT_EQ(NextFire("pinned"), "2026-10-20T16:05:00Z");

  // By hand: the move belongs to the transaction that changed the zone.
  {
    auto tx = pool_->Begin("move_user");
    tx.ExecText("UPDATE chopar.users SET timezone = 'Europe/Berlin' WHERE id = 1");
    service_->RecomputeForUser(tx, 1);
    // Rolled back: nothing moves.
  }
  EXPECT_EQ(NextFire("follows"), "2026-10-20T13:05:00Z");
  {
    auto tx = pool_->Begin("move_user");
    tx.ExecText("UPDATE chopar.users SET timezone = 'Europe/Berlin' WHERE id = 1");
    service_->RecomputeForUser(tx, 1);
    tx.Commit();
  }
  EXPECT_EQ(NextFire("follows"), "2026-10-20T16:05:00Z");

  clock_.Set(At("2026-10-20T16:05:00Z"));
  EXPECT_EQ(scheduler_->RunOnce().fired, 2);
}

TEST_F(SchedulerTest, AnOccurrenceAlreadyDueStaysDueWhenTheUserMoves) {
  AddUser(1, "Asia/Tashkent");
  Put("pill-1", Body(1, "5 18 * * *"));
  clock_.Set(At("2026-10-20T14:00:00Z"));  // 13:05Z passed while no scheduler ran
  PutUser(1, {{"timezone", "Europe/Berlin"}});
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T13:05:00Z");
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T13:05:00Z");
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T16:05:00Z");  // then Berlin's 18:05
}

TEST_F(SchedulerTest, DowntimeAcrossTwoOccurrencesFollowsEachPolicy) {
  AddUser(1, "UTC");
  clock_.Set(At("2026-10-20T08:00:00Z"));
  Put("latest", Body(1, "0 9 * * *", nullptr, "latest", 2 * 86400));
  Put("all", Body(1, "0 9 * * *", nullptr, "all", 2 * 86400));
  Put("short-window", Body(1, "0 9 * * *", nullptr, "all", 1800));
  Put("none", Body(1, "0 9 * * *", nullptr, "none", 86400));

  clock_.Set(At("2026-10-21T10:00:00Z"));  // down across 10-20 09:00 and 10-21 09:00
  const SchedulerRunStats stats = scheduler_->RunOnce();
  EXPECT_EQ(stats.claimed, 4);
  EXPECT_EQ(stats.fired, 3);
  EXPECT_EQ(stats.skipped, 1 + 2 + 2);

  EXPECT_EQ(FiredDueAts("latest"), "2026-10-21T09:00:00Z");
  EXPECT_EQ(Column("latest", "skipped_count"), "1");
  EXPECT_EQ(Column("latest", "chopar.api_time(last_skipped_at)"), "2026-10-20T09:00:00Z");

  EXPECT_EQ(FiredDueAts("all"), "2026-10-20T09:00:00Z,2026-10-21T09:00:00Z");
  EXPECT_EQ(Column("all", "skipped_count"), "0");
  EXPECT_EQ(Column("all", "last_skipped_at"), "");

  EXPECT_EQ(FiredDueAts("short-window"), "");
  EXPECT_EQ(Column("short-window", "skipped_count"), "2");
  EXPECT_EQ(Column("short-window", "chopar.api_time(last_skipped_at)"), "2026-10-21T09:00:00Z");
  EXPECT_EQ(Column("short-window", "last_fired_at"), "");

  EXPECT_EQ(FiredDueAts("none"), "");
  EXPECT_EQ(Column("none", "skipped_count"), "2");

  for (const char* key : {"latest", "all", "short-window", "none"}) {
    EXPECT_EQ(NextFire(key), "2026-10-22T09:00:00Z") << key;
  }
  EXPECT_GT(metrics_.GetCounter("chopar_schedule_skipped_total", "").Value(), 0);
  const std::string metrics = metrics_.Render();
  EXPECT_NE(metrics.find("chopar_schedule_skipped_total"), std::string::npos);
  EXPECT_NE(metrics.find("chopar_schedule_lag_seconds_bucket"), std::string::npos);
}

TEST_F(SchedulerTest, BerlinFollowsTheEndOfSummerTime) {
  AddUser(1, "Europe/Berlin");
  AddUser(2, "Asia/Tashkent");
  clock_.Set(At("2026-10-24T12:00:00Z"));
  Put("berlin", Body(1, "5 18 * * *"));
  Put("tashkent", Body(2, "5 18 * * *"));
  for (const char* instant :
       {"2026-10-24T13:05:00Z", "2026-10-24T16:05:00Z", "2026-10-25T13:05:00Z",
        "2026-10-25T17:05:00Z", "2026-10-26T13:05:00Z", "2026-10-26T17:05:00Z"}) {
    clock_.Set(At(instant));
    EXPECT_EQ(scheduler_->RunOnce().fired, 1) << instant;
  }
  EXPECT_EQ(FiredDueAts("berlin"),
            "2026-10-24T16:05:00Z,2026-10-25T17:05:00Z,2026-10-26T17:05:00Z");
  EXPECT_EQ(FiredDueAts("tashkent"),
            "2026-10-24T13:05:00Z,2026-10-25T13:05:00Z,2026-10-26T13:05:00Z");
}

TEST_F(SchedulerTest, LongCatchUpIsSpreadOverBatchesAndFiresEachOccurrenceOnce) {
  AddUser(1, "UTC");
  for (int i = 0; i < 7; ++i)
    Put("m" + std::to_string(i), Body(1, "* * * * *", nullptr, "all", 86400));
  clock_.Advance(hours(20));  // 1200 missed minutes each; `all` fires the newest 1000
  const SchedulerRunStats stats = scheduler_->RunOnce();
  EXPECT_GE(stats.batches, 2);  // at most 5000 notifications per transaction
  EXPECT_EQ(stats.claimed, 7);
  EXPECT_EQ(stats.fired, 7000);
  EXPECT_EQ(stats.skipped, 7 * 200);
  EXPECT_EQ(stats.duplicates, 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 7000);
  EXPECT_EQ(
      db_->Count(
          "SELECT count(*) FROM chopar.schedules WHERE next_fire_at = '2026-10-21T06:01:00Z'"),
      7);
  EXPECT_EQ(scheduler_->RunOnce().claimed, 0);
}

TEST_F(SchedulerTest, DeletingAUserDeletesTheirSchedules) {
  AddUser(1, "UTC");
  AddUser(2, "UTC");
  Put("a", Body(1, "@daily"));
  Put("b", Body(1, "@hourly"));
  Put("c", Body(2, "@daily"));
  db_->Scalar("DELETE FROM chopar.users WHERE id = 1");
  EXPECT_EQ(db_->Scalar("SELECT string_agg(key, ',') FROM chopar.schedules"), "c");
}

TEST_F(SchedulerTest, FailureBeforeCommitLosesNothing) {
  AddUser(1, "UTC");
  Put("pill-1", Body(1, "0 11 * * *"));
  // Every notification insert fails, as if the process died mid-batch.
  db_->Connect().ExecScript(
      "CREATE FUNCTION chopar.refuse() RETURNS trigger LANGUAGE plpgsql AS "
      "$$BEGIN RAISE EXCEPTION 'injected failure'; END$$;"
      "CREATE TRIGGER refuse BEFORE INSERT ON chopar.notifications FOR EACH ROW EXECUTE FUNCTION "
      "chopar.refuse()");
  clock_.Set(At("2026-10-20T11:00:00Z"));
  EXPECT_THROW(scheduler_->RunOnce(), db::DbError);
  EXPECT_EQ(NextFire("pill-1"), "2026-10-20T11:00:00Z");
  EXPECT_EQ(Column("pill-1", "last_fired_at"), "");

  db_->Scalar("DROP TRIGGER refuse ON chopar.notifications");
  clock_.Set(At("2026-10-20T11:00:30Z"));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(scheduler_->RunOnce().fired, 0);
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T11:00:00Z");
}

TEST_F(SchedulerTest, UserUpdateInProgressIsSkippedNotWaitedFor) {
  AddUser(1, "UTC");
  AddUser(2, "UTC");
  Put("a", Body(1, "0 11 * * *"));
  Put("b", Body(2, "0 11 * * *"));
  clock_.Set(At("2026-10-20T11:00:00Z"));

  // A user update holds user 1's row, as PutUser does before it recomputes
  // that user's schedules (which the scheduler may hold): the scheduler must
  // pass over user 1 rather than wait and deadlock.
  auto held = pool_->Begin("user_update");
  held.ExecText("SELECT 1 FROM chopar.users WHERE id = 1 FOR UPDATE");
  auto run = std::async(std::launch::async, [&] { return scheduler_->RunOnce(); });
  const bool finished = run.wait_for(seconds(20)) == std::future_status::ready;
  held.Commit();  // lets a blocked RunOnce end either way
  ASSERT_TRUE(finished) << "the scheduler waited on a locked user row";
  EXPECT_EQ(run.get().fired, 1);
  EXPECT_EQ(FiredDueAts("b"), "2026-10-20T11:00:00Z");
  EXPECT_EQ(FiredDueAts("a"), "");

  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(FiredDueAts("a"), "2026-10-20T11:00:00Z");
}

TEST_F(SchedulerTest, IdleLookupReportsTheEarliestAndTheDueCount) {
  AddUser(1, "UTC");
  EXPECT_EQ(scheduler_->LookUpDue().next_fire_at, std::nullopt);
  Put("a", Body(1, "0 11 * * *"));
  Put("b", Body(1, "0 12 * * *"));
  nlohmann::json disabled = Body(1, "30 10 * * *");
  disabled["enabled"] = false;
  Put("off", disabled);
  DueState state = scheduler_->LookUpDue();
  EXPECT_EQ(state.next_fire_at, At("2026-10-20T11:00:00Z"));
  EXPECT_EQ(state.due, 0);
  clock_.Set(At("2026-10-20T12:00:00Z"));
  state = scheduler_->LookUpDue();
  EXPECT_EQ(state.due, 2);
}

TEST_F(SchedulerTest, IdleLookupReadsOnlyTheIndex) {
  AddUser(1, "UTC");
  db_->Connect().ExecScript(
      "INSERT INTO chopar.schedules (key, user_id, cron, type, title, next_fire_at) "
      "SELECT 'k' || i, 1, '0 9 * * *', 'pill.reminder', 'T', '2026-11-01'::timestamptz + i * "
      "interval '1 s' "
      "FROM generate_series(1, 20000) i; ANALYZE chopar.schedules");
  auto conn = db_->Connect();
  const std::string plan = testing::AnalyzedPlan(conn, queries::kNextDue.sql,
                                                 db::Params(core::FormatRfc3339(clock_.Now())));
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_NE(plan.find("schedules_due"), std::string::npos) << plan;
  // Nothing is due: the count is never run.
  EXPECT_NE(plan.find("(never executed)"), std::string::npos) << plan;
}

TEST_F(SchedulerTest, ClaimReadsEachUserByKey) {
  // A batch's users are looked up by key whatever the planner guesses: a
  // custom plan of a plain join hashed the whole users table for each batch.
  db_->Connect().ExecScript(
      "INSERT INTO chopar.users (id, email, timezone) "
      "SELECT i, 'u' || i || '@example.uz', 'UTC' FROM generate_series(1, 20000) i; "
      "INSERT INTO chopar.schedules (key, user_id, cron, type, title, next_fire_at) "
      "SELECT 'k' || i, i, '0 9 * * *', 'pill.reminder', 'T', '2026-10-20T09:00:00Z' "
      "FROM generate_series(1, 2000) i; ANALYZE chopar.users; ANALYZE chopar.schedules");
  auto conn = db_->Connect();
  const std::string plan = testing::AnalyzedPlan(
      conn, queries::kClaimDueSchedules.sql,
      db::Params(core::FormatRfc3339(clock_.Now()), 500, std::optional<std::string>()));
  EXPECT_EQ(plan.find("Seq Scan on users"), std::string::npos) << plan;
  EXPECT_NE(plan.find("users_pkey"), std::string::npos) << plan;
}

TEST_F(SchedulerTest, LoopWakesOnNotifyAndFiresWhatIsDue) {
  AddUser(1, "UTC");
  Put("pill-1", Body(1, "0 11 * * *"));
  scheduler_->Start();
  // The loop now sleeps towards 11:00 by the simulated clock (capped at the
  // real max sleep). Moving the clock and writing a schedule wakes it early.
  clock_.Set(At("2026-10-20T11:00:00Z"));
  Put("other", Body(1, "0 23 * * *"));
  const auto deadline = std::chrono::steady_clock::now() + seconds(20);
  while (Notifications() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  scheduler_->Stop();
  EXPECT_EQ(FiredDueAts("pill-1"), "2026-10-20T11:00:00Z");
}

}  // namespace
}  // namespace chopar::schedule
