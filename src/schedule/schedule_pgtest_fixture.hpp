#pragma once

#include <gtest/gtest.h>

#include <future>
#include <latch>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/clock.hpp"
#include "core/time_format.hpp"
#include "db/pool.hpp"
#include "hub/user_service.hpp"
#include "schedule/schedule_service.hpp"
#include "schedule/scheduler.hpp"
#include "testing/test_database.hpp"

namespace chopar::schedule {

inline core::TimePoint At(const char* rfc3339) { return *core::ParseRfc3339(rfc3339); }

// A migrated database, a simulated clock, the schedule service, a user
// service whose zone changes move schedules (as the app wires it), and one
// scheduler stepped by RunOnce().
class SchedulePgTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    service_ = std::make_unique<ScheduleService>(*pool_, clock_);
    hub::UserService::Options options;
    options.timezone_changed = [this](db::Transaction& tx, std::int64_t user_id) {
      service_->RecomputeForUser(tx, user_id);
    };
    users_ = std::make_unique<hub::UserService>(*pool_, std::move(options));
    scheduler_ = std::make_unique<Scheduler>(*pool_, clock_, metrics_, SchedulerSettings{});
  }

  void AddUser(std::int64_t id, const std::string& zone) {
    PutUser(id, {{"timezone", zone}, {"email", "user" + std::to_string(id) + "@example.uz"}});
  }

  // The writes as their routes make them, from request bodies.
  void PutUser(std::int64_t id, const nlohmann::json& body) {
    users_->PutUser(id, hub::ParseUserUpdate(body));
  }
  StoredSchedule Put(const std::string& key, const nlohmann::json& body) {
    return service_->Put(ParseScheduleSpec(key, body));
  }
  std::size_t BulkPut(const nlohmann::json& body) {
    return service_->BulkPut(ParseScheduleSpecs(body));
  }

  // Users 1..`users` (without a zone) and `count` schedules "k0", "k1", …
  // of `cron` in UTC, one per user in turn.
  void PutMany(int count, int users, const std::string& cron, const std::string& policy) {
    db_->Scalar(
        "INSERT INTO chopar.users (id, email) SELECT i, 'u' || i || '@example.uz' FROM "
        "generate_series(1, " +
        std::to_string(users) + ") i");
    nlohmann::json items = nlohmann::json::array();
    for (int i = 0; i < count; ++i) {
      nlohmann::json item = Body(1 + i % users, cron, "UTC", policy);
      item["key"] = "k" + std::to_string(i);
      items.push_back(std::move(item));
    }
    ASSERT_EQ(BulkPut({{"schedules", items}}), static_cast<std::size_t>(count));
  }

  // Two schedulers of batch 50, each with a pool of its own (as two
  // processes have), that start `fire` on both at once; get() the results.
  struct RacingSchedulers {
    RacingSchedulers(const std::string& url, const core::Clock& clock,
                     core::MetricsRegistry& metrics)
        : pool_a(url, 2),
          pool_b(url, 2),
          a(pool_a, clock, metrics, Settings()),
          b(pool_b, clock, metrics, Settings()) {}
    template <typename Fire>
    std::pair<std::future<SchedulerRunStats>, std::future<SchedulerRunStats>> Start(Fire fire) {
      const auto run = [this, fire](Scheduler& scheduler) {
        start.arrive_and_wait();
        return fire(scheduler);
      };
      return {std::async(std::launch::async, run, std::ref(a)),
              std::async(std::launch::async, run, std::ref(b))};
    }
    static SchedulerSettings Settings() {
      SchedulerSettings settings;
      settings.batch = 50;
      return settings;
    }
    db::Pool pool_a, pool_b;
    Scheduler a, b;
    std::latch start{2};
  };

  // What two racing schedulers did together: `schedules` claimed, `fired`
  // occurrences, each with its one notification.
  void ExpectEachFiredOnce(const SchedulerRunStats& a, const SchedulerRunStats& b, int schedules,
                           int fired) {
    EXPECT_EQ(a.claimed + b.claimed, schedules);
    EXPECT_EQ(a.fired + b.fired, fired);
    EXPECT_EQ(a.duplicates + b.duplicates, 0);
    EXPECT_EQ(Notifications(), fired);
    EXPECT_EQ(db_->Count("SELECT count(DISTINCT dedup_key) FROM chopar.notifications"), fired);
  }

  static nlohmann::json Body(std::int64_t user_id, const std::string& cron,
                             nlohmann::json timezone = nullptr,
                             const std::string& policy = "latest", int window_seconds = 86400) {
    return {{"user_id", user_id},
            {"cron", cron},
            {"timezone", std::move(timezone)},
            {"notification",
             {{"type", "pill.reminder"},
              {"title", "Sitramon"},
              {"body", "18:00 dori vaqti"},
              {"link", "/pills/17"},
              {"data", {{"pill_id", 17}}}}},
            {"catchup", {{"policy", policy}, {"window_seconds", window_seconds}}}};
  }

  // A column of one schedule as text ("" for NULL).
  std::string Column(const std::string& key, const std::string& expression) {
    return db_->Scalar("SELECT " + expression + " FROM chopar.schedules WHERE key = '" + key + "'");
  }
  std::string NextFire(const std::string& key) {
    return Column(key, "chopar.api_time(next_fire_at)");
  }

  // The due_at of every notification the schedule created, oldest first.
  std::string FiredDueAts(const std::string& key) {
    return db_->Scalar(
        "SELECT string_agg(data->>'due_at', ',' ORDER BY data->>'due_at') FROM "
        "chopar.notifications "
        "WHERE data->>'schedule' = '" +
        key + "'");
  }
  std::int64_t Notifications() { return db_->Count("SELECT count(*) FROM chopar.notifications"); }

  core::SimulatedClock clock_{At("2026-10-20T10:00:00Z")};
  core::MetricsRegistry metrics_;  // what this test's scheduler counted
  std::unique_ptr<ScheduleService> service_;
  std::unique_ptr<hub::UserService> users_;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace chopar::schedule
