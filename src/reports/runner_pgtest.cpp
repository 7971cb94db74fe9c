// The report runner on a real PostgreSQL with a simulated clock: a period is
// reported exactly once per admin across restarts, crashes, failing sources
// and several instances.

#include <gtest/gtest.h>

#include <latch>
#include <thread>

#include "db/errors.hpp"
#include "reports/job_source.hpp"
#include "reports/pgtest_fixture.hpp"
#include "reports/runner.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::reports {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using testing::DocumentJobs;
using testing::ScriptedSource;
using testing::Tashkent;

class RunnerTest : public testing::ReportsPgTest {
 protected:
  void SetUp() override {
    ReportsPgTest::SetUp();
    if (IsSkipped()) return;
    AddAdminsAndAUser();
  }
};

TEST_F(RunnerTest, ReportsAPeriodOnceToEveryAdmin) {
  ScriptedSource source;
  Runner runner(*pool_, DocumentJobs(), source, clock_, metrics_);

  const TickResult first = runner.RunOnce();
  ASSERT_TRUE(first.ran);
  EXPECT_EQ(first.ran->period.key, "weekly:2026-W33");
  EXPECT_TRUE(first.sent);
  EXPECT_EQ(first.recipients, 2);
  EXPECT_FALSE(first.pending);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 1), 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 2), 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 3), 0);
  EXPECT_EQ(db_->Scalar("SELECT type || '|' || title || '|' || body || '|' || (data->>'period') "
                        "FROM chopar.notifications WHERE user_id = 1"),
            "report.summary|Haftalik hisobot: 2026-W33|weekly weekly:2026-W33|weekly:2026-W33");
  EXPECT_EQ(db_->Scalar("SELECT job || ' ' || period_key || ' ' || recipients || ' ' || "
                        "api_time(due_at) FROM chopar.report_runs"),
            "weekly weekly:2026-W33 2 2026-08-17T04:00:00Z");
  // Each admin got the channels their addresses allow (email here), each a
  // delivery of its own.
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries d JOIN chopar.notifications n "
                  "ON n.id = d.notification_id WHERE n.type = 'report.summary'"),
            2);

  // Later ticks the same Monday: nothing more until the evening check.
  clock_.Advance(minutes(1));
  EXPECT_FALSE(runner.RunOnce().ran);
  clock_.Set(Tashkent(2026, 8, 17, 20, 0));
  const TickResult evening = runner.RunOnce();
  ASSERT_TRUE(evening.ran);
  EXPECT_EQ(evening.ran->period.key, "anomaly:2026-08-17");
  EXPECT_EQ(db_->Scalar("SELECT title || '|' || body FROM chopar.notifications "
                        "WHERE type = 'report.anomaly' AND user_id = 2"),
            "⚠️ Bugungi anomaliyalar:|— orders: 30 (odatda 100, -70%)");
  EXPECT_EQ(source.fetched(),
            (std::vector<std::string>{"weekly weekly:2026-W33", "anomaly anomaly:2026-08-17"}));
  EXPECT_EQ(AllReportNotifications(), 4);
  EXPECT_DOUBLE_EQ(metrics_.GetCounter("chopar_report_runs_total", "", {{"job", "weekly"}}).Value(),
                   1);
  EXPECT_DOUBLE_EQ(
      metrics_.GetGauge("chopar_report_last_success_timestamp_seconds", "", {{"job", "anomaly"}})
          .Value(),
      std::chrono::duration<double>(Tashkent(2026, 8, 17, 20).time_since_epoch()).count());
}

// The source document's four due_task cases, through the runner with the
// simulated clock and the periods recorded in the database.
TEST_F(RunnerTest, TheDocumentsFourCasesOnTheSimulatedClock) {
  ScriptedSource source;
  Runner runner(*pool_, DocumentJobs(), source, clock_, metrics_);
  const auto ran = [&]() -> std::string {
    const TickResult result = runner.RunOnce();
    return result.ran ? runner.jobs()[result.ran->job].name + " " + result.ran->period.key : "-";
  };
  clock_.Set(Tashkent(2026, 8, 17, 9));
  EXPECT_EQ(ran(), "weekly weekly:2026-W33");
  clock_.Set(Tashkent(2026, 8, 17, 21));
  EXPECT_EQ(ran(), "anomaly anomaly:2026-08-17");
  clock_.Set(Tashkent(2026, 8, 18, 8));
  EXPECT_EQ(ran(), "-");
  // Had the weekly report not been sent on Monday, Tuesday 09:00 is too late.
  Sql("DELETE FROM chopar.report_runs WHERE job = 'weekly'");
  clock_.Set(Tashkent(2026, 8, 18, 9));
  EXPECT_EQ(ran(), "-");
  EXPECT_EQ(source.fetched().size(), 2u);
}

TEST_F(RunnerTest, AnomalyCheckThatFindsNothingIsRecordedAndSendsNothing) {
  ScriptedSource source([](const ReportJob&, const ReportPeriod&) -> ReportContent {
    return AnomalyContent{{{"orders", 95}}, {{"orders", 100}}};
  });
  const std::vector<ReportJob> jobs = {testing::Compiled(testing::AnomalySettings())};
  Runner runner(*pool_, jobs, source, clock_, metrics_);
  clock_.Set(Tashkent(2026, 8, 17, 20));
  const TickResult result = runner.RunOnce();
  ASSERT_TRUE(result.ran);
  EXPECT_FALSE(result.sent);
  EXPECT_EQ(AllReportNotifications(), 0);
  EXPECT_EQ(db_->Scalar("SELECT period_key || ' ' || recipients FROM chopar.report_runs"),
            "anomaly:2026-08-17 0");
  clock_.Advance(minutes(1));
  EXPECT_FALSE(runner.RunOnce().ran);
  EXPECT_EQ(source.fetched().size(), 1u);
}

// The process dies between fetching the content and committing: its
// backend is terminated in the middle of the run's transaction (as when the
// host goes down). Nothing is recorded; after the restart the period is
// reported once.
TEST_F(RunnerTest, RestartBetweenFetchAndCommitReportsOnce) {
  Sql("CREATE FUNCTION chopar.die() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$");
  Sql("CREATE TRIGGER die BEFORE INSERT ON chopar.report_runs FOR EACH ROW EXECUTE FUNCTION "
      "chopar.die()");
  ScriptedSource source;
  {
    auto process = NewInstance(source);
    EXPECT_THROW(process->runner.RunOnce(), db::DbError);
  }
  EXPECT_EQ(source.fetched().size(), 1u);
  EXPECT_EQ(Runs(), 0);
  EXPECT_EQ(AllReportNotifications(), 0);

  Sql("DROP TRIGGER die ON chopar.report_runs");
  clock_.Advance(minutes(3));
  auto restarted = NewInstance(source);
  const TickResult result = restarted->runner.RunOnce();
  ASSERT_TRUE(result.ran);
  EXPECT_EQ(result.ran->period.key, "weekly:2026-W33");
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 1), 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 2), 1);
  EXPECT_EQ(Runs(), 1);
}

// The process dies right after COMMIT: whichever instance looks next finds
// the period reported and neither fetches nor sends it again.
TEST_F(RunnerTest, CrashAfterCommitNeverReportsAgain) {
  ScriptedSource source;
  {
    auto process = NewInstance(source);
    ASSERT_TRUE(process->runner.RunOnce().ran);
  }
  for (int restart = 0; restart < 3; ++restart) {
    clock_.Advance(minutes(5));
    auto process = NewInstance(source);
    const TickResult result = process->runner.RunOnce();
    EXPECT_FALSE(result.ran);
    EXPECT_FALSE(result.pending);
  }
  EXPECT_EQ(source.fetched().size(), 1u);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 1), 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 2), 1);
}

// Two chopar instances run the same jobs; both fetch the same period before
// either commits. One transaction claims it, the other finds it taken.
TEST_F(RunnerTest, TwoInstancesReportEachPeriodOnce) {
  std::unique_ptr<std::latch> both_fetched;
  ScriptedSource source([&](const ReportJob& job, const ReportPeriod& period) {
    both_fetched->arrive_and_wait();
    return ScriptedSource::DefaultAnswer(job, period);
  });
  auto a = NewInstance(source);
  auto b = NewInstance(source);

  for (const core::TimePoint at : {Tashkent(2026, 8, 17, 9), Tashkent(2026, 8, 17, 20),
                                   Tashkent(2026, 8, 18, 20), Tashkent(2026, 9, 1, 9)}) {
    clock_.Set(at);
    both_fetched = std::make_unique<std::latch>(2);
    TickResult result_a, result_b;
    std::thread thread_a([&] { result_a = a->runner.RunOnce(); });
    std::thread thread_b([&] { result_b = b->runner.RunOnce(); });
    thread_a.join();
    thread_b.join();
    EXPECT_NE(result_a.ran.has_value(), result_b.ran.has_value());
    EXPECT_EQ(result_a.reported_elsewhere + result_b.reported_elsewhere, 1);
  }
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 1), 1);
  EXPECT_EQ(Notifications("anomaly", "anomaly:2026-08-17", 1), 1);
  EXPECT_EQ(Notifications("anomaly", "anomaly:2026-08-18", 2), 1);
  EXPECT_EQ(Notifications("monthly", "monthly:2026-08", 2), 1);
  EXPECT_EQ(AllReportNotifications(), 8);
  EXPECT_EQ(Runs(), 4);
  EXPECT_DOUBLE_EQ(
      a->metrics.GetCounter("chopar_report_runs_total", "", {{"job", "weekly"}}).Value() +
          b->metrics.GetCounter("chopar_report_runs_total", "", {{"job", "weekly"}}).Value(),
      1);
}

// Two instances ticking every half hour through two weeks, in parallel.
TEST_F(RunnerTest, TwoInstancesTickingTogetherForTwoWeeks) {
  ScriptedSource source;
  auto a = NewInstance(source);
  auto b = NewInstance(source);
  for (core::TimePoint at = Tashkent(2026, 8, 17, 8); at < Tashkent(2026, 9, 1, 10);
       at += minutes(30)) {
    clock_.Set(at);
    std::thread thread_a([&] { (void)a->runner.RunOnce(); });
    (void)b->runner.RunOnce();
    thread_a.join();
  }
  // Three Mondays, fifteen evenings, one 1st of the month; each once per admin.
  EXPECT_EQ(Runs(), 3 + 15 + 1);
  EXPECT_EQ(AllReportNotifications(), 2 * (3 + 15 + 1));
  EXPECT_EQ(Count("SELECT count(*) FROM (SELECT user_id, dedup_key FROM chopar.notifications "
                  "GROUP BY 1, 2 HAVING count(*) > 1) t"),
            0);
}

// The application's endpoint answers 503 twice, then the report. Each
// failure records nothing but the job's last error; the third tick
// reports the period once.
TEST_F(RunnerTest, SourceThatFailsTwiceThenSucceedsGivesOneReport) {
  int calls = 0;
  chopar::testing::FakeHttpServer server([&](const chopar::testing::FakeHttpServer::Request&) {
    chopar::testing::FakeHttpServer::Response response;
    response.status = ++calls <= 2 ? 503 : 200;
    response.body = calls <= 2 ? R"({"error": "maintenance"})" : R"({"text": "Savdo: 1200"})";
    return response;
  });
  ReportJobSettings settings = testing::WeeklySettings();
  settings.source = server.url() + "/stats/weekly";
  net::HttpClient http;
  JobSource source(*pool_, http);
  Runner runner(*pool_, {testing::Compiled(settings)}, source, clock_, metrics_);

  for (int attempt = 1; attempt <= 2; ++attempt) {
    const TickResult result = runner.RunOnce();
    EXPECT_FALSE(result.ran);
    EXPECT_EQ(result.failures, 1);
    EXPECT_TRUE(result.pending);
    EXPECT_EQ(Runs(), 0);
    EXPECT_EQ(AllReportNotifications(), 0);
    EXPECT_EQ(db_->Scalar("SELECT failures || ' ' || last_error FROM chopar.report_jobs"),
              std::to_string(attempt) + " HTTP 503: {\"error\": \"maintenance\"}");
    clock_.Advance(minutes(1));
  }
  const TickResult third = runner.RunOnce();
  ASSERT_TRUE(third.ran);
  EXPECT_EQ(third.recipients, 2);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 1), 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 2), 1);
  EXPECT_EQ(db_->Scalar("SELECT body FROM chopar.notifications WHERE user_id = 1"), "Savdo: 1200");
  EXPECT_EQ(db_->Scalar("SELECT failures || ' ' || api_time(last_success_at) FROM "
                        "chopar.report_jobs"),
            "0 2026-08-17T04:02:00Z");
  clock_.Advance(minutes(1));
  EXPECT_FALSE(runner.RunOnce().ran);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_DOUBLE_EQ(
      metrics_.GetCounter("chopar_report_failures_total", "", {{"job", "weekly"}}).Value(), 2);
}

TEST_F(RunnerTest, FailedSourceStopsBeingTriedWhenItsWindowEnds) {
  ScriptedSource source([](const ReportJob&, const ReportPeriod&) -> ReportContent {
    throw SourceError("HTTP 502");
  });
  Runner runner(*pool_, DocumentJobs(), source, clock_, metrics_);
  EXPECT_EQ(runner.RunOnce().failures, 1);
  clock_.Set(Tashkent(2026, 8, 18, 0, 1));  // the weekly window ended at midnight
  const TickResult late = runner.RunOnce();
  EXPECT_EQ(late.failures, 0);
  EXPECT_FALSE(late.pending);
  EXPECT_EQ(source.fetched().size(), 1u);
}

TEST_F(RunnerTest, OneFailingJobDoesNotHoldUpTheOthers) {
  ScriptedSource source([](const ReportJob& job, const ReportPeriod& period) -> ReportContent {
    if (job.name == "weekly") throw SourceError("HTTP 500");
    return ScriptedSource::DefaultAnswer(job, period);
  });
  Runner runner(*pool_, DocumentJobs(), source, clock_, metrics_);
  clock_.Set(Tashkent(2026, 8, 17, 20));
  const TickResult result = runner.RunOnce();
  EXPECT_EQ(result.failures, 1);
  ASSERT_TRUE(result.ran);
  EXPECT_EQ(result.ran->period.key, "anomaly:2026-08-17");
  EXPECT_TRUE(result.pending);  // the weekly report is still due
}

TEST_F(RunnerTest, NoAdminIsAFailureUntilThereIsOne) {
  Sql("UPDATE chopar.users SET admin = false");
  ScriptedSource source;
  Runner runner(*pool_, DocumentJobs(), source, clock_, metrics_);
  const TickResult none = runner.RunOnce();
  EXPECT_FALSE(none.ran);
  EXPECT_EQ(none.failures, 1);
  EXPECT_EQ(Runs(), 0);
  EXPECT_EQ(db_->Scalar("SELECT last_error FROM chopar.report_jobs WHERE job = 'weekly'"),
            "no recipient: no user has admin = true");

  Sql("UPDATE chopar.users SET admin = true WHERE id = 3");
  clock_.Advance(minutes(1));
  const TickResult one = runner.RunOnce();
  ASSERT_TRUE(one.ran);
  EXPECT_EQ(one.recipients, 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 3), 1);
}

TEST_F(RunnerTest, ListedRecipientsInsteadOfAdmins) {
  ReportJobSettings settings = testing::WeeklySettings();
  settings.recipient_ids = std::vector<std::int64_t>{3, 99};  // 99 does not exist
  ScriptedSource source;
  Runner runner(*pool_, {testing::Compiled(settings)}, source, clock_, metrics_);
  const TickResult result = runner.RunOnce();
  ASSERT_TRUE(result.ran);
  EXPECT_EQ(result.recipients, 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33"), 1);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33", 3), 1);
}

// After three days down, a daily check with a three-day window catches up
// one report per tick, oldest first.
TEST_F(RunnerTest, BacklogArrivesOneReportPerTickInOrder) {
  ReportJobSettings daily = testing::AnomalySettings();
  daily.catchup_window = hours(24 * 3);
  ScriptedSource source;
  Runner runner(*pool_, {testing::Compiled(daily)}, source, clock_, metrics_);
  clock_.Set(Tashkent(2026, 8, 17, 21));
  std::vector<std::string> keys;
  for (int tick = 0; tick < 5; ++tick) {
    const TickResult result = runner.RunOnce();
    if (result.ran) keys.push_back(result.ran->period.key);
    EXPECT_EQ(result.pending, tick < 2);
    clock_.Advance(minutes(1));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"anomaly:2026-08-15", "anomaly:2026-08-16",
                                            "anomaly:2026-08-17"}));
}

}  // namespace
}  // namespace chopar::reports
