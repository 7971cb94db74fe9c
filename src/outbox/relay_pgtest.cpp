// The relay beyond the canon: several targets, routing by type, partial
// success, pauses, Retry-After, the NOTIFY wake-up and the metrics.
#include <gtest/gtest.h>

#include "db/notify_channels.hpp"
#include "outbox/relay.hpp"
#include "outbox/test_support.hpp"
#include "testing/child_process.hpp"

namespace chopar::outbox {
namespace {

using testing::EmitMany;
using testing::RecordingTarget;
using testing::TestRelaySettings;

class RelayTest : public chopar::testing::PgTest {
 protected:
  Relay MakeRelay(std::vector<Route> routes, RelaySettings settings = TestRelaySettings()) {
    return Relay(*pool_, "chopar", std::move(routes), settings, clock_, metrics_, top_);
  }
  std::string Column(const std::string& event_id, const std::string& expression) {
    return db_->Scalar("SELECT " + expression + " FROM chopar.outbox WHERE event_id = '" +
                       event_id + "'");
  }
  core::SimulatedClock clock_{std::chrono::system_clock::now()};
  core::MetricsRegistry metrics_;
  testing::TopRandom top_;
};

TEST_F(RelayTest, APartialSuccessRetriesOnlyTheTargetThatFailed) {
  const auto ids = EmitMany(*pool_, 3);
  RecordingTarget webhook;
  RecordingTarget broker(
      [](const Event&) { return PublishOutcome::Unavailable("connection refused"); });
  Relay relay =
      MakeRelay({{"webhook", TypePatterns(), &webhook}, {"nats", TypePatterns(), &broker}});

  const RelayRunStats first = relay.RunOnce();
  EXPECT_EQ(first.failed, 3);
  EXPECT_EQ(webhook.published(), ids);
  EXPECT_EQ(Column(ids[0], "delivered_to::text || '|' || attempts || '|' || last_error"),
            "{webhook}|1|nats: connection refused");

  broker.SetAnswer({});
  db_->Scalar("UPDATE chopar.outbox SET next_attempt_at = now()");
  clock_.Advance(std::chrono::minutes(1));  // past the broker's pause
  EXPECT_EQ(relay.RunOnce().dispatched, 3);
  EXPECT_EQ(broker.published(), ids);
  EXPECT_EQ(webhook.attempted().size(), 3u) << "the webhook got them again";
  EXPECT_EQ(
      Column(ids[2], "delivered_to::text || '|' || attempts || '|' || (dispatched_at IS NOT NULL)"),
      "{webhook}|2|true");
}

TEST_F(RelayTest, TypesRouteEventsAndAnEventNoTargetWantsIsDispatchedUnpublished) {
  const auto tasks = EmitMany(*pool_, 2, "task.created");
  const auto due = EmitMany(*pool_, 1, "task.due.soon");
  const auto other = EmitMany(*pool_, 1, "invoice.paid");
  RecordingTarget all, task_events, soon;
  Relay relay = MakeRelay({{"all", TypePatterns(), &all},
                           {"tasks", TypePatterns({"task.*"}), &task_events},
                           {"soon", TypePatterns({"*.soon", "nothing"}), &soon}});
  EXPECT_EQ(relay.RunOnce().dispatched, 4);
  EXPECT_EQ(all.published().size(), 4u);
  EXPECT_EQ(task_events.published(), (std::vector<std::string>{tasks[0], tasks[1], due[0]}));
  EXPECT_EQ(soon.published(), due);

  RecordingTarget only_tasks;
  Relay narrow = MakeRelay({{"tasks", TypePatterns({"task.*"}), &only_tasks}});
  const auto paid = EmitMany(*pool_, 1, "invoice.paid");
  EXPECT_EQ(narrow.RunOnce().dispatched, 1);
  EXPECT_EQ(only_tasks.calls(), 0);
  EXPECT_EQ(Column(paid[0], "(dispatched_at IS NOT NULL) || '|' || attempts"), "true|1");
  (void)other;
}

TEST_F(RelayTest, AnUnavailableTargetIsPausedAndDoesNotHoldUpTheOthers) {
  RecordingTarget healthy;
  RecordingTarget down([](const Event&) { return PublishOutcome::Unavailable("timed out"); });
  Relay relay = MakeRelay({{"down", TypePatterns(), &down}, {"healthy", TypePatterns(), &healthy}});

  EmitMany(*pool_, 5);
  EXPECT_EQ(relay.RunOnce().failed, 5);
  EXPECT_EQ(down.calls(), 1);
  // While paused it is not asked: later batches go to the healthy target only.
  const auto later = EmitMany(*pool_, 5);
  EXPECT_EQ(relay.RunOnce().claimed, 5);
  EXPECT_EQ(down.calls(), 1);
  EXPECT_EQ(healthy.published().size(), 10u);
  EXPECT_EQ(Column(later[0], "last_error"),
            "down: target paused after 1 unavailable calls in a row");
  // Due again no earlier than the pause's end (1 s, from the target's clock).
  EXPECT_GE(std::stod(Column(later[0], "extract(epoch FROM next_attempt_at - now())")), 0.5);

  // After the pause it is asked again; a second failure doubles the pause.
  clock_.Advance(std::chrono::milliseconds(1100));
  db_->Scalar("UPDATE chopar.outbox SET next_attempt_at = now()");
  EXPECT_EQ(relay.RunOnce().failed, 10);
  EXPECT_EQ(down.calls(), 2);
  clock_.Advance(std::chrono::milliseconds(1100));
  db_->Scalar("UPDATE chopar.outbox SET next_attempt_at = now()");
  relay.RunOnce();
  EXPECT_EQ(down.calls(), 2) << "the second pause is 2 s";
  EXPECT_EQ(healthy.published().size(), 10u) << "the healthy target got nothing twice";

  // One event refused for itself (not unavailable) pauses nothing.
  down.SetAnswer([](const Event&) { return PublishOutcome::Failed("HTTP 400"); });
  clock_.Advance(std::chrono::seconds(3));
  db_->Scalar("UPDATE chopar.outbox SET next_attempt_at = now()");
  relay.RunOnce();
  clock_.Advance(std::chrono::milliseconds(1));
  db_->Scalar("UPDATE chopar.outbox SET next_attempt_at = now()");
  relay.RunOnce();
  EXPECT_EQ(down.calls(), 4);
}

TEST_F(RelayTest, RetryAfterFromTheTargetSetsTheNextAttempt) {
  const auto ids = EmitMany(*pool_, 1);
  RecordingTarget busy([](const Event&) {
    return PublishOutcome::Unavailable("HTTP 429", std::chrono::seconds(120));
  });
  Relay relay = MakeRelay({{"busy", TypePatterns(), &busy}});
  relay.RunOnce();
  const double wait = std::stod(Column(ids[0], "extract(epoch FROM next_attempt_at - now())"));
  EXPECT_GT(wait, 115);
  EXPECT_LE(wait, 120);
}

class ThrowingTarget final : public Target {
 public:
  std::vector<PublishOutcome> Publish(std::span<const Event* const>) override {
    throw std::runtime_error("the broker library crashed");
  }
};

TEST_F(RelayTest, ATargetThatThrowsFailsItsEventsWithTheReason) {
  const auto ids = EmitMany(*pool_, 2);
  ThrowingTarget broken;
  Relay relay = MakeRelay({{"broken", TypePatterns(), &broken}});
  EXPECT_EQ(relay.RunOnce().failed, 2);
  EXPECT_EQ(Column(ids[1], "last_error || '|' || attempts"),
            "broken: the broker library crashed|1");
}

TEST_F(RelayTest, MetricsCountPublishedFailedAndDispatched) {
  EmitMany(*pool_, 3);
  RecordingTarget ok;
  Relay relay = MakeRelay({{"ok", TypePatterns(), &ok}});
  relay.RunOnce();
  const std::string text = metrics_.Render();
  EXPECT_NE(text.find("chopar_outbox_published_total{target=\"ok\"} 3"), std::string::npos) << text;
  EXPECT_NE(text.find("chopar_outbox_publish_failures_total{target=\"ok\"} 0"), std::string::npos)
      << text;
  EXPECT_NE(text.find("chopar_outbox_dispatched_total{source=\"chopar\"} 3"), std::string::npos)
      << text;
  EXPECT_NE(text.find("chopar_outbox_publish_latency_seconds_count{target=\"ok\"} 3"),
            std::string::npos)
      << text;
}

TEST_F(RelayTest, EmitWakesAStartedRelayThroughNotify) {
  RecordingTarget target;
  RelaySettings settings = TestRelaySettings();
  settings.listen = true;
  settings.poll_interval = std::chrono::minutes(10);  // only a NOTIFY can wake it in time
  Relay relay = MakeRelay({{"target", TypePatterns(), &target}}, settings);
  relay.Start();
  ASSERT_TRUE(chopar::testing::WaitUntil(
      [&] {
        const std::string text = metrics_.Render();
        return text.find("chopar_loop_wakeups_total{loop=\"relay\",source=\"notify\"} 1") !=
               std::string::npos;
      },
      std::chrono::seconds(20)))
      << "the listener's first connection wakes the loop once";
  const auto ids = EmitMany(*pool_, 3);
  EXPECT_TRUE(chopar::testing::WaitUntil([&] { return target.published().size() == 3; },
                                         std::chrono::seconds(20)));
  relay.Stop();
  EXPECT_EQ(target.published(), ids);
}

}  // namespace
}  // namespace chopar::outbox
