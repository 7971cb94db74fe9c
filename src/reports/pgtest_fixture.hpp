#pragma once

// The PostgreSQL fixture shared by the reports tests (header only; not part
// of the library): users created with direct SQL, a simulated clock on
// Monday 2026-08-17 09:00 in Tashkent, a scriptable source, and counts read
// back from the tables.

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "reports/runner.hpp"
#include "reports/source.hpp"
#include "reports/test_jobs.hpp"
#include "testing/test_database.hpp"

namespace chopar::reports::testing {

// A source whose answers the test decides, counting the calls. Thread-safe.
class ScriptedSource final : public ReportSource {
 public:
  using Answer = std::function<ReportContent(const ReportJob&, const ReportPeriod&)>;

  // Every summary says "<job> <period key>"; anomaly checks find orders 70% down.
  static ReportContent DefaultAnswer(const ReportJob& job, const ReportPeriod& period) {
    if (job.kind == ReportKind::kAnomaly)
      return AnomalyContent{{{"orders", 30}}, {{"orders", 100}}};
    return SummaryContent{std::nullopt, job.name + " " + period.key};
  }

  explicit ScriptedSource(Answer answer = DefaultAnswer) : answer_(std::move(answer)) {}

  ReportContent Fetch(const ReportJob& job, const ReportPeriod& period, core::TimePoint) override {
    {
      std::lock_guard lock(mutex_);
      fetched_.push_back(job.name + " " + period.key);
    }
    return answer_(job, period);
  }

  // "<job> <period key>" of every call so far, in order.
  std::vector<std::string> fetched() const {
    std::lock_guard lock(mutex_);
    return fetched_;
  }

 private:
  Answer answer_;
  mutable std::mutex mutex_;
  std::vector<std::string> fetched_;
};

class ReportsPgTest : public chopar::testing::PgTest {
 protected:
  // Runs SQL (one statement or several) on the fixture's own connection.
  void Sql(const std::string& sql) {
    if (!conn_) conn_.emplace(db_->Connect());
    conn_->ExecScript(sql);
  }
  std::int64_t Count(const std::string& sql) { return db_->Count(sql); }

  // A user with an email address; `admin` as said; with a Telegram chat
  // (and no email) when `chat_id` is given.
  void AddUser(std::int64_t id, bool admin, std::optional<std::int64_t> chat_id = std::nullopt) {
    const std::string user = std::to_string(id);
    if (chat_id) {
      Sql("INSERT INTO chopar.users (id, admin, locale) VALUES (" + user + ", " +
          (admin ? "true" : "false") + ", 'uz')");
      Sql("INSERT INTO chopar.telegram_connections (user_id, chat_id) VALUES (" + user + ", " +
          std::to_string(*chat_id) + ")");
    } else {
      Sql("INSERT INTO chopar.users (id, admin, email) VALUES (" + user + ", " +
          (admin ? "true" : "false") + ", 'u" + user + "@example.uz')");
    }
  }

  // Notifications of one report period for one user.
  std::int64_t Notifications(const std::string& job, const std::string& key,
                             std::optional<std::int64_t> user = std::nullopt) {
    return Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key = 'report:" + job +
                 ":" + key + "'" + (user ? " AND user_id = " + std::to_string(*user) : ""));
  }
  std::int64_t AllReportNotifications() {
    return Count("SELECT count(*) FROM chopar.notifications WHERE type LIKE 'report.%'");
  }
  std::int64_t Runs() { return Count("SELECT count(*) FROM chopar.report_runs"); }

  // What one chopar process has: its own pool, metrics and runner.
  struct Instance {
    Instance(const std::string& url, std::vector<ReportJob> jobs, ReportSource& source,
             const core::Clock& clock)
        : pool(url, 4), runner(pool, std::move(jobs), source, clock, metrics) {}
    db::Pool pool;
    core::MetricsRegistry metrics;
    Runner runner;
  };
  std::unique_ptr<Instance> NewInstance(ReportSource& source,
                                        std::vector<ReportJob> jobs = DocumentJobs()) {
    return std::make_unique<Instance>(db_->url(), std::move(jobs), source, clock_);
  }

  // Two admins (1 and 2, with email) and a user who is not one (3).
  void AddAdminsAndAUser() {
    AddUser(1, true);
    AddUser(2, true);
    AddUser(3, false);
  }

  std::optional<db::Connection> conn_;
  core::SimulatedClock clock_{Tashkent(2026, 8, 17, 9)};
  core::MetricsRegistry metrics_;
};

}  // namespace chopar::reports::testing
