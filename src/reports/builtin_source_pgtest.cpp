// chopar's own statistics over delivery history the test writes: three weeks
// and a day of notifications and deliveries, with a weekly summary and an
// evening anomaly check computed from them.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "reports/builtin_source.hpp"
#include "reports/job_source.hpp"
#include "reports/pgtest_fixture.hpp"
#include "reports/queries.hpp"
#include "reports/texts.hpp"
#include "testing/query_plans.hpp"

namespace chopar::reports {
namespace {

using core::ChannelKind;
using testing::Tashkent;

class BuiltinSourceTest : public testing::ReportsPgTest {
 protected:
  void SetUp() override {
    ReportsPgTest::SetUp();
    if (IsSkipped()) return;
    AddAdminsAndAUser();
    SeedHistory();
  }

  // `count` notifications of `type`, one a minute from `local_time` on
  // `day` (Tashkent), each with one delivery on `channel` in `status`;
  // sent ones `latency` seconds after creation, failed or skipped ones
  // with `reason`.
  void Seed(const std::string& type, const std::string& channel, const std::string& day,
            const std::string& local_time, int count, const std::string& status = "sent",
            int latency = 0, const std::string& reason = "") {
    Sql("WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, created_at) "
        "SELECT 1, '" +
        type + "', 'seeded', '" + day + " " + local_time +
        "+05'::timestamptz + make_interval(mins => i) FROM generate_series(0, " +
        std::to_string(count - 1) +
        ") i RETURNING id, created_at) "
        "INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, claimed_at, "
        "sent_at, last_error, created_at, updated_at) "
        "SELECT id, 1, '" +
        channel + "', '" + status +
        "', "
        "CASE WHEN '" +
        status +
        "' IN ('sent', 'sending') THEN created_at END, "
        "CASE WHEN '" +
        status + "' = 'sent' THEN created_at + make_interval(secs => " + std::to_string(latency) +
        ") END, " + (reason.empty() ? std::string("NULL") : "'" + reason + "'") +
        ", created_at, created_at FROM n");
  }

  // Every day from Monday 2026-07-27 to Monday 2026-08-17: ten orders from
  // 08:00 (email, sent after 2 s) and four tasks from 12:00 (Telegram, sent
  // after 10 s); and these departures from it:
  //   2026-08-03 (Mon): 2 tasks             2026-08-10 (Mon): 6 tasks, one more order at 21:00
  //   2026-08-12 (Wed): 2 tasks failed "blocked", 1 failed "chat not found", 1 order skipped
  //   2026-08-16 (Sun): 1 task still queued
  //   2026-08-17 (Mon, today): 3 orders, 2 of the 4 tasks failed "blocked"
  void SeedHistory() {
    const std::string blocked = "telegram 403: Forbidden: bot was blocked by the user";
    for (int d = 0; d <= 21; ++d) {
      const date::year_month_day ymd(date::sys_days(date::year(2026) / 7 / 27) + date::days(d));
      const std::string day =
          fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()),
                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
      if (day == "2026-08-17") {
        Seed("order.created", "email", day, "08:00", 3, "sent", 2);
        Seed("task.due", "telegram", day, "12:00", 2, "sent", 10);
        Seed("task.due", "telegram", day, "12:30", 2, "failed", 0, blocked);
      } else if (day == "2026-08-12") {
        Seed("order.created", "email", day, "08:00", 9, "sent", 2);
        Seed("order.created", "email", day, "08:30", 1, "skipped", 0, "hourly limit 20");
        Seed("task.due", "telegram", day, "12:00", 1, "sent", 10);
        Seed("task.due", "telegram", day, "12:10", 2, "failed", 0, blocked);
        Seed("task.due", "telegram", day, "12:20", 1, "failed", 0,
             "telegram 400: Bad Request: chat not found");
      } else {
        Seed("order.created", "email", day, "08:00", 10, "sent", 2);
        const int tasks = day == "2026-08-03" ? 2 : day == "2026-08-10" ? 6 : 4;
        if (day == "2026-08-16") {
          Seed("task.due", "telegram", day, "12:00", tasks - 1, "sent", 10);
          Seed("task.due", "telegram", day, "12:30", 1, "queued");
        } else {
          Seed("task.due", "telegram", day, "12:00", tasks, "sent", 10);
        }
        if (day == "2026-08-10") Seed("order.created", "email", day, "21:00", 1, "sent", 2);
      }
    }
    Sql("ANALYZE chopar.notifications; ANALYZE chopar.deliveries");
  }
};

TEST_F(BuiltinSourceTest, WeeklySummaryCountsTheWeeksNotificationsAndDeliveries) {
  BuiltinSource source(*pool_);
  const ReportJob weekly = testing::Compiled(testing::WeeklySettings());
  const SummaryStats stats = source.Summary(PeriodOf(weekly, Tashkent(2026, 8, 17, 9)));

  // 2026-08-10 .. 08-16: 7 × 10 orders + the late one; 6 + 5 × 4 + 4 tasks.
  EXPECT_EQ(stats.notifications, 71 + 30);
  EXPECT_EQ(stats.top_types, (std::vector<NamedCount>{{"order.created", 71}, {"task.due", 30}}));
  EXPECT_EQ(stats.deliveries[ChannelKind::kEmail], (DeliveryCounts{70, 0, 1, 0}));
  EXPECT_EQ(stats.deliveries[ChannelKind::kTelegram], (DeliveryCounts{26, 3, 0, 1}));
  EXPECT_EQ(stats.deliveries[ChannelKind::kPush], DeliveryCounts{});
  EXPECT_EQ(stats.failure_reasons,
            (std::vector<NamedCount>{{"telegram 403: Forbidden: bot was blocked by the user", 2},
                                     {"telegram 400: Bad Request: chat not found", 1}}));
  // 70 sends after 2 s and 26 after 10 s.
  EXPECT_DOUBLE_EQ(*stats.latency_p50, 2);
  EXPECT_DOUBLE_EQ(*stats.latency_p95, 10);

  const ReportMessage message =
      RenderSummary(stats, weekly, PeriodOf(weekly, Tashkent(2026, 8, 17, 9)));
  EXPECT_EQ(message.body,
            "Davr: 2026-08-10 – 2026-08-16 (Asia/Tashkent)\n"
            "Bildirishnomalar: 101\n"
            "Yetkazishlar:\n"
            "— email: 70 yuborildi, 1 o‘tkazildi\n"
            "— telegram: 26 yuborildi, 3 xato, 1 navbatda\n"
            "Eng ko‘p turlar:\n"
            "— order.created: 71\n"
            "— task.due: 30\n"
            "Xato sabablari:\n"
            "— telegram 403: Forbidden: bot was blocked by the user: 2\n"
            "— telegram 400: Bad Request: chat not found: 1\n"
            "Kechikish: p50 2 s, p95 10 s");
}

TEST_F(BuiltinSourceTest, MonthlySummaryOfJuly) {
  BuiltinSource source(*pool_);
  const ReportJob monthly = testing::Compiled(testing::MonthlySettings());
  const SummaryStats stats = source.Summary(PeriodOf(monthly, Tashkent(2026, 8, 1, 9)));
  // 2026-07-27 .. 07-31: five ordinary days.
  EXPECT_EQ(stats.notifications, 5 * 14);
  EXPECT_EQ(stats.deliveries[ChannelKind::kEmail], (DeliveryCounts{50, 0, 0, 0}));
  EXPECT_EQ(stats.deliveries[ChannelKind::kTelegram], (DeliveryCounts{20, 0, 0, 0}));
  EXPECT_TRUE(stats.failure_reasons.empty());
}

TEST_F(BuiltinSourceTest, AnomalyCheckComparesTodayWithTheSameWeekdayOfTwoWeeks) {
  BuiltinSource source(*pool_);
  const ReportJob anomaly = testing::Compiled(testing::AnomalySettings());
  const AnomalyContent numbers = source.Anomaly(anomaly, Tashkent(2026, 8, 17, 20));
  // Today until 20:00 against the mean of 08-10 and 08-03 until 20:00 (the
  // order at 21:00 on 08-10 is not counted).
  EXPECT_EQ(numbers.today, (Metrics{{"email.sent", 3},
                                    {"notifications.order.created", 3},
                                    {"notifications.task.due", 4},
                                    {"telegram.failed", 2},
                                    {"telegram.sent", 2}}));
  EXPECT_EQ(numbers.baseline, (Metrics{{"email.sent", 10},
                                       {"notifications.order.created", 10},
                                       {"notifications.task.due", 4},
                                       {"telegram.failed", 0},
                                       {"telegram.sent", 4}}));
  const auto message = MessageFor(anomaly, PeriodOf(anomaly, Tashkent(2026, 8, 17, 20)), numbers);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->title, "⚠️ Bugungi anomaliyalar:");
  EXPECT_EQ(message->body,
            "— email.sent: 3 (odatda 10, -70%)\n"
            "— notifications.order.created: 3 (odatda 10, -70%)");
}

TEST_F(BuiltinSourceTest, AnOrdinaryDayIsSilent) {
  BuiltinSource source(*pool_);
  const ReportJob anomaly = testing::Compiled(testing::AnomalySettings());
  // Sunday 2026-08-09 against 08-02 and 07-26 (before the history: half the
  // baseline) — and Sunday 08-16 against two ordinary Sundays.
  const auto ordinary = source.Anomaly(anomaly, Tashkent(2026, 8, 16, 20));
  EXPECT_EQ(MessageFor(anomaly, PeriodOf(anomaly, Tashkent(2026, 8, 16, 20)), ordinary),
            std::nullopt);
}

// The whole path: the runner with the builtin source reports the week and
// the evening's anomalies to both admins.
TEST_F(BuiltinSourceTest, RunnerSendsTheBuiltinReportsToTheAdmins) {
  net::HttpClient http;
  JobSource source(*pool_, http);
  Runner runner(*pool_, testing::DocumentJobs(), source, clock_, metrics_);
  ASSERT_TRUE(runner.RunOnce().ran);
  EXPECT_EQ(Notifications("weekly", "weekly:2026-W33"), 2);
  EXPECT_NE(db_->Scalar("SELECT body FROM chopar.notifications WHERE type = 'report.summary' "
                        "AND user_id = 2")
                .find("Bildirishnomalar: 101\n"),
            std::string::npos);
  clock_.Set(Tashkent(2026, 8, 17, 20, 5));
  ASSERT_TRUE(runner.RunOnce().ran);
  EXPECT_EQ(db_->Scalar("SELECT body FROM chopar.notifications WHERE type = 'report.anomaly' "
                        "AND user_id = 1"),
            "— email.sent: 3 (odatda 10, -70%)\n"
            "— notifications.order.created: 3 (odatda 10, -70%)");
}

// The statistics read only the period's rows: with months of older history
// the planner reaches the period's notifications through
// notifications_created (a BRIN index since 0038: a bitmap of the period's
// block ranges) and their deliveries through the unique
// (notification_id, channel) index, never scanning either table.
TEST_F(BuiltinSourceTest, StatisticsReadOnlyThePeriodsRows) {
  Sql("WITH n AS (INSERT INTO chopar.notifications (user_id, type, title, created_at) "
      "SELECT 1, 'old.news', 'old', '2025-07-01+05'::timestamptz + make_interval(mins => i * 5) "
      "FROM generate_series(0, 40000) i RETURNING id, created_at) "
      "INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, claimed_at, "
      "sent_at, created_at, updated_at) "
      "SELECT id, 1, 'email', 'sent', created_at, created_at, created_at, created_at FROM n");
  Sql("ANALYZE chopar.notifications; ANALYZE chopar.deliveries");
  // The plan of the statement as chopar runs it, with the weekly report's parameters.
  const auto plan = [&](const db::Query& query, const std::string& arguments) {
    Sql(std::string("PREPARE planned AS ") + query.sql);
    const std::string text =
        conn_->ExecText("EXPLAIN (FORMAT JSON) EXECUTE planned(" + arguments + ")", {})
            .String(0, 0);
    Sql("DEALLOCATE planned");
    return text;
  };
  // notifications_created's index on each partition.
  std::vector<std::string> created_indexes;
  std::istringstream names(
      db_->Scalar("SELECT string_agg(c.relname, ' ') FROM pg_inherits i "
                  "JOIN pg_class c ON c.oid = i.inhrelid "
                  "WHERE i.inhparent = 'chopar.notifications_created'::regclass"));
  for (std::string name; names >> name;) created_indexes.push_back(name);
  ASSERT_FALSE(created_indexes.empty());
  for (const std::string& text :
       {plan(queries::kSummaryStats, "'2026-08-09T19:00:00Z', '2026-08-16T19:00:00Z', 5"),
        plan(queries::kAnomalyMetrics,
             "'2026-08-16T19:00:00Z', '2026-08-17T15:00:00Z', '2026-08-09T19:00:00Z', "
             "'2026-08-10T15:00:00Z', '2026-08-02T19:00:00Z', '2026-08-03T15:00:00Z'")}) {
    EXPECT_TRUE(std::any_of(created_indexes.begin(), created_indexes.end(),
                            [&](const std::string& index) {
                              return text.find("\"" + index + "\"") != std::string::npos;
                            }))
        << text;
    // Empty partitions of deliveries (the weeks ahead) may be read sequentially.
    EXPECT_TRUE(chopar::testing::BigRelationsScannedSequentially(*conn_, text).empty()) << text;
  }
}

}  // namespace
}  // namespace chopar::reports
