// A schedule's delayed and cancellable occurrences (docs/api.md "Delayed and
// cancellable occurrences"), over HTTP: the scheduler and the releaser run
// on a simulated clock that starts at the current minute, stepped by the
// test, so each instant is exact. An occurrence with delay_seconds is fired
// on time and stays invisible (inbox, unread count) until due + delay, also
// when it was fired late by catch-up; its cancellation_key cancels it before
// it appears without disabling the schedule; invalid workflow members are
// refused naming the field and change nothing; GET echoes them.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "core/time_format.hpp"
#include "http/http_server_fixture.hpp"
#include "http/schedule_routes.hpp"
#include "http/workflow_routes.hpp"
#include "schedule/scheduler.hpp"
#include "workflow/engine/cancel.hpp"
#include "workflow/engine/releaser.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

class ScheduleWorkflowTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    schedules_ = std::make_unique<schedule::ScheduleService>(*pool_, clock_at_);
    canceler_ = std::make_unique<workflow::engine::Canceler>(*pool_, metrics_);
    StartServer(DefaultSettings());  // again, now with the schedule and workflow routes
    scheduler_ = std::make_unique<schedule::Scheduler>(*pool_, clock_at_, metrics_,
                                                       schedule::SchedulerSettings{});
    releaser_ = std::make_unique<workflow::engine::Releaser>(*pool_, clock_at_, metrics_, nullptr);
    PutUser(1, {{"email", "aziz@example.uz"}});
  }
  void TearDown() override {
    releaser_.reset();
    scheduler_.reset();
    HttpServerPgTest::TearDown();
  }
  void AddRoutes(Router& router) override {
    if (!schedules_) return;
    RegisterScheduleRoutes(router, *schedules_);
    RegisterWorkflowRoutes(router, *canceler_);
  }

  // Every minute, for user 1, with `workflow` merged into the notification.
  static json EveryMinute(const json& workflow) {
    json notification = {{"type", "pill.reminder"}, {"title", "Sitramon"}};
    notification.update(workflow);
    return {{"user_id", 1},
            {"cron", "* * * * *"},
            {"notification", notification},
            {"catchup", {{"policy", "all"}, {"window_seconds", 3600}}}};
  }
  HttpResult PutSchedule(const std::string& key, const json& body) {
    return client().Put("/v1/schedules/" + key, body.dump(), {kAuth});
  }
  json Get(const std::string& path) { return client().Get(path, {kAuth}).Json(); }
  json Inbox() { return Get("/v1/users/1/notifications")["items"]; }
  int Unread() { return Get("/v1/users/1/notifications/unread-count")["count"]; }
  json Cancel(const json& body) {
    const auto response = client().Post("/v1/notifications/cancel", body.dump(), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return response.Json();
  }
  // Moves the simulated clock to `offset` after the test's first minute.
  void At(seconds offset) { clock_at_.Set(start_ + offset); }
  std::string Rfc3339(seconds offset) const { return core::FormatRfc3339(start_ + offset); }

  // The current minute: the first "* * * * *" occurrence after a PUT at
  // start_ is start_ + 60 s.
  const core::TimePoint start_ =
      std::chrono::floor<std::chrono::minutes>(std::chrono::system_clock::now());
  core::SimulatedClock clock_at_{start_};
  std::unique_ptr<schedule::ScheduleService> schedules_;
  std::unique_ptr<workflow::engine::Canceler> canceler_;
  std::unique_ptr<schedule::Scheduler> scheduler_;
  std::unique_ptr<workflow::engine::Releaser> releaser_;
};

TEST_F(ScheduleWorkflowTest, DelayedOccurrenceAppearsAtDuePlusDelay) {
  const auto put = PutSchedule("pill-1", EveryMinute({{"delay_seconds", 30}}));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.Json()["next_fire_at"], Rfc3339(seconds(60)));

  At(seconds(60));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1) << "fired on time, as a delayed notification";
  EXPECT_EQ(releaser_->RunOnce(), 0);
  EXPECT_EQ(Inbox().size(), 0u);
  EXPECT_EQ(Unread(), 0);

  At(seconds(89));
  EXPECT_EQ(releaser_->RunOnce(), 0) << "not before due + delay";
  EXPECT_EQ(Inbox().size(), 0u);

  At(seconds(90));
  EXPECT_EQ(releaser_->RunOnce(), 1);
  const json inbox = Inbox();
  ASSERT_EQ(inbox.size(), 1u);
  EXPECT_EQ(inbox[0]["data"]["due_at"], Rfc3339(seconds(60))) << "due_at stays the due instant";
  EXPECT_EQ(inbox[0]["data"]["schedule"], "pill-1");
  EXPECT_EQ(Unread(), 1);
}

TEST_F(ScheduleWorkflowTest, OccurrenceFiredLateByCatchupCountsItsDelayFromItsDueInstant) {
  ASSERT_EQ(PutSchedule("pill-1", EveryMinute({{"delay_seconds", 30}})).status, 200);

  // The scheduler was down: it fires the 60 s occurrence 10 s late. It
  // appears at due + delay (90 s), not at firing + delay (100 s).
  At(seconds(70));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  At(seconds(89));
  EXPECT_EQ(releaser_->RunOnce(), 0);
  EXPECT_EQ(Inbox().size(), 0u);
  At(seconds(90));
  EXPECT_EQ(releaser_->RunOnce(), 1);
  EXPECT_EQ(Unread(), 1);

  // Down longer than the delay: the 120 s and 180 s occurrences (policy
  // all) are past due + delay when fired at 215 s, so they appear at once.
  At(seconds(215));
  EXPECT_EQ(scheduler_->RunOnce().fired, 2);
  EXPECT_EQ(Inbox().size(), 3u) << "no releaser step needed";
  EXPECT_EQ(Unread(), 3);
}

TEST_F(ScheduleWorkflowTest, CancellationKeyCancelsPendingOccurrencesButNotTheSchedule) {
  ASSERT_EQ(PutSchedule("pill-1",
                        EveryMinute({{"delay_seconds", 30}, {"cancellation_key", "pill-1:dose"}}))
                .status,
            200);
  At(seconds(60));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  EXPECT_EQ(Cancel({{"user_id", 1}, {"cancellation_key", "pill-1:dose"}}), (json{{"canceled", 1}}));

  // The canceled occurrence never appears; the next one fires and appears.
  At(seconds(90));
  EXPECT_EQ(releaser_->RunOnce(), 0);
  EXPECT_EQ(Inbox().size(), 0u);
  EXPECT_EQ(Unread(), 0);
  At(seconds(120));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1) << "canceling does not disable the schedule";
  At(seconds(150));
  EXPECT_EQ(releaser_->RunOnce(), 1);
  const json inbox = Inbox();
  ASSERT_EQ(inbox.size(), 1u);
  EXPECT_EQ(inbox[0]["data"]["due_at"], Rfc3339(seconds(120)));
}

TEST_F(ScheduleWorkflowTest, CancellationKeyEndsTheQueuedDeliveriesOfAnOccurrenceWithoutDelay) {
  ASSERT_EQ(PutSchedule("pill-1",
                        EveryMinute({{"cancellation_key", "pill-1:dose"}, {"channels", {"email"}}}))
                .status,
            200);
  At(seconds(60));
  EXPECT_EQ(scheduler_->RunOnce().fired, 1);
  const json inbox = Inbox();
  ASSERT_EQ(inbox.size(), 1u) << "no delay: visible at once";
  const std::string path = "/v1/notifications/" + inbox[0]["id"].dump();
  EXPECT_EQ(Get(path)["deliveries"][0]["status"], "queued");  // no worker runs here

  EXPECT_EQ(Cancel({{"cancellation_key", "pill-1:dose"}}), (json{{"canceled", 1}}));
  EXPECT_EQ(Get(path)["deliveries"][0]["status"], "canceled");
}

TEST_F(ScheduleWorkflowTest, GetEchoesTheWorkflowMembers) {
  ASSERT_EQ(PutSchedule("pill-1",
                        EveryMinute({{"delay_seconds", 600}, {"cancellation_key", "pill-1:dose"}}))
                .status,
            200);
  const json notification = Get("/v1/schedules/pill-1")["notification"];
  EXPECT_EQ(notification["delay_seconds"], 600);
  EXPECT_EQ(notification["cancellation_key"], "pill-1:dose");

  // Bulk writes carry them too; a schedule without them shows null.
  json bulk_item = EveryMinute({{"delay_seconds", 0}});
  bulk_item["key"] = "pill-2";
  json plain = EveryMinute(json::object());
  plain["key"] = "pill-3";
  const auto bulk =
      client().Put("/v1/schedules", json{{"schedules", {bulk_item, plain}}}.dump(), {kAuth});
  ASSERT_EQ(bulk.status, 200) << bulk.body;
  EXPECT_EQ(Get("/v1/schedules/pill-2")["notification"]["delay_seconds"], 0);
  EXPECT_EQ(Get("/v1/schedules/pill-3")["notification"]["delay_seconds"], nullptr);
  EXPECT_EQ(Get("/v1/schedules/pill-3")["notification"]["cancellation_key"], nullptr);
}

TEST_F(ScheduleWorkflowTest, InvalidWorkflowMembersAreRefusedAndChangeNothing) {
  ASSERT_EQ(PutSchedule("pill-1", EveryMinute({{"delay_seconds", 30}})).status, 200);
  const json before = Get("/v1/schedules/pill-1");

  struct Refusal {
    json workflow;
    std::string field;
  };
  for (const Refusal& r : std::vector<Refusal>{
           {{{"delay_seconds", -1}}, "notification.delay_seconds"},
           {{{"delay_seconds", 31622401}}, "notification.delay_seconds"},
           {{{"delay_seconds", "30"}}, "notification.delay_seconds"},
           {{{"send_at", "2099-01-01T00:00:00Z"}}, "notification.send_at"},
           {{{"send_at", "2099-01-01T00:00:00Z"}, {"delay_seconds", 30}}, "notification.send_at"},
           {{{"cancellation_key", ""}}, "notification.cancellation_key"},
           {{{"cancellation_key", std::string(256, 'k')}}, "notification.cancellation_key"}}) {
    for (const std::string key : {"pill-1", "pill-2"}) {  // a replacement and a new schedule
      const auto refused = PutSchedule(key, EveryMinute(r.workflow));
      EXPECT_EQ(refused.status, 400) << r.workflow.dump();
      EXPECT_EQ(refused.Json()["error"]["field"], r.field) << refused.body;
    }
  }
  EXPECT_EQ(Get("/v1/schedules/pill-1"), before);
  EXPECT_EQ(client().Get("/v1/schedules/pill-2", {kAuth}).status, 404);

  json item = EveryMinute({{"delay_seconds", -1}});
  item["key"] = "pill-3";
  const auto bulk = client().Put("/v1/schedules", json{{"schedules", {item}}}.dump(), {kAuth});
  EXPECT_EQ(bulk.status, 400);
  EXPECT_EQ(bulk.Json()["error"]["field"], "schedules[0].notification.delay_seconds") << bulk.body;
  EXPECT_EQ(client().Get("/v1/schedules/pill-3", {kAuth}).status, 404);
}

}  // namespace
}  // namespace chopar::http::testing
