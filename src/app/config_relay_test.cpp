// [relay], its [[relay.targets]] entries and [events].
#include <gtest/gtest.h>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

using std::chrono::seconds;

constexpr const char* kThreeTargets = R"(
[relay]
source_url = "postgresql://relay@app/app"

[[relay.targets]]
kind = "webhook"
url = "https://app.example/hooks"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
types = ["task.*", "delivery.failed"]
timeout_seconds = 5

[[relay.targets]]
kind = "nats"
name = "broker"
url = "nats://127.0.0.1:4222"
subject = "app.{type}"
stream = "APP"
duplicate_window_seconds = 600

[[relay.targets]]
kind = "notify"
types = ["task.due"]
title = "{{payload.title}}"
body = "{{payload.body}}"
link = "/tasks/{{payload.task_id}}"
channels = ["email", "push"]
critical = true
)";

TEST_F(ConfigTest, RelayTargetsAreReadEntryByEntryAndNamedByKind) {
  const Config c = Load(kThreeTargets);
  ASSERT_EQ(c.relay.targets.size(), 3u);
  const auto& webhook = c.relay.targets[0];
  EXPECT_EQ(webhook.name, "webhook");
  EXPECT_EQ(webhook.url, "https://app.example/hooks");
  EXPECT_EQ(webhook.types, (std::vector<std::string>{"task.*", "delivery.failed"}));
  EXPECT_EQ(webhook.timeout, seconds(5));
  EXPECT_EQ(webhook.max_in_flight, 16) << "the default";
  const auto& nats = c.relay.targets[1];
  EXPECT_EQ(nats.name, "broker");
  EXPECT_EQ(nats.subject, "app.{type}");
  EXPECT_EQ(nats.stream, "APP");
  EXPECT_EQ(nats.duplicate_window, seconds(600));
  EXPECT_EQ(nats.timeout, seconds(10)) << "the default";
  const auto& notify = c.relay.targets[2];
  EXPECT_EQ(notify.name, "notify");
  EXPECT_EQ(notify.title, "{{payload.title}}");
  EXPECT_EQ(notify.channels, (std::vector<std::string>{"email", "push"}));
  EXPECT_TRUE(notify.critical);
}

TEST_F(ConfigTest, AWebhookTargetsMaxInFlightIsFrom1To1024AndWebhookOnly) {
  constexpr const char* kWebhook =
      "[[relay.targets]]\nkind = \"webhook\"\nurl = \"https://a.example\"\n"
      "secret = \"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"\n";
  EXPECT_EQ(Load(kWebhook).relay.targets[0].max_in_flight, 16);
  EXPECT_EQ(Load(std::string(kWebhook) + "max_in_flight = 4\n").relay.targets[0].max_in_flight, 4);
  EXPECT_EQ(Load(std::string(kWebhook) + "max_in_flight = 1024\n").relay.targets[0].max_in_flight,
            1024);
  EXPECT_EQ(FileRefusal(std::string(kWebhook) + "max_in_flight = 0\n"),
            "config: [[relay.targets]] #1 (webhook): max_in_flight must be from 1 to 1024");
  EXPECT_EQ(FileRefusal(std::string(kWebhook) + "max_in_flight = 1025\n"),
            "config: [[relay.targets]] #1 (webhook): max_in_flight must be from 1 to 1024");
  EXPECT_EQ(FileRefusal(std::string(kWebhook) + "max_in_flight = \"many\"\n"),
            "config: [[relay.targets]] #1 max_in_flight has the wrong type (expected an integer)");
  EXPECT_EQ(
      FileRefusal("[[relay.targets]]\nkind = \"nats\"\nurl = \"nats://127.0.0.1:4222\"\n"
                  "max_in_flight = 4\n"),
      "config: [[relay.targets]] #1 (nats): key max_in_flight does not apply to nats targets");
}

TEST_F(ConfigTest, NoTargetsByDefaultAndNoEventsEmitted) {
  const Config c = LoadConfig(std::nullopt, {});
  EXPECT_TRUE(c.relay.targets.empty());
  EXPECT_TRUE(c.events.emit.empty());
  EXPECT_EQ(c.relay.batch, 500);
  EXPECT_EQ(c.relay.retention_days, 7);
}

TEST_F(ConfigTest, ATargetEntryRefusesUnknownKeysKeysOfOtherKindsAndWhatItsKindLacks) {
  EXPECT_EQ(
      FileRefusal(
          "[[relay.targets]]\nkind = \"webhook\"\nurl = \"https://a.example\"\nsecert = \"x\"\n"),
      "config: unknown key [[relay.targets]] #1 secert (did you mean secret?)");
  EXPECT_EQ(FileRefusal("[[relay.targets]]\nkind = \"nats\"\nurl = \"nats://127.0.0.1:4222\"\n"
                        "secret = \"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\"\n"),
            "config: [[relay.targets]] #1 (nats): key secret does not apply to nats targets");
  EXPECT_EQ(FileRefusal("[[relay.targets]]\nkind = \"webhook\"\nurl = \"https://a.example\"\n"),
            "config: [[relay.targets]] #1 (webhook): secret must be a Standard Webhooks secret, "
            "whsec_<base64>");
  EXPECT_EQ(FileRefusal("[[relay.targets]]\nkind = \"notify\"\ntitle = 5\n"),
            "config: [[relay.targets]] #1 title has the wrong type (expected a string)");
  EXPECT_EQ(
      FileRefusal(
          "[[relay.targets]]\nkind = \"notify\"\ntitle = \"x\"\nchannels = [\"email\", 3]\n"),
      "config: [[relay.targets]] #1 channels has the wrong type (expected an array of strings)");
  EXPECT_EQ(FileRefusal("[relay]\ntargets = 3\n"),
            "config: [[relay.targets]] must be an array of tables");
}

TEST_F(ConfigTest, EventsToEmitMustBeChoparsOwn) {
  EXPECT_EQ(Load("[events]\nemit = [\"delivery.*\"]\n").events.emit,
            std::vector<std::string>{"delivery.*"});
  EXPECT_EQ(LoadConfig(std::nullopt, {{"CHOPAR_EVENTS_EMIT", "delivery.sent, notification.*"}})
                .events.emit,
            (std::vector<std::string>{"delivery.sent", "notification.*"}));
  EXPECT_EQ(FileRefusal("[events]\nemit = [\"delivery.sen\"]\n"),
            "config: [events] emit: \"delivery.sen\" matches none of chopar's events "
            "(notification.created, notification.read, notification.seen, notification.unread, "
            "notification.archived, notification.unarchived, notification.snoozed, "
            "notification.unsnoozed, delivery.sent, delivery.failed, delivery.skipped, "
            "delivery.canceled, delivery.delivered, delivery.bounced, delivery.complained, "
            "audit.recorded)");
  EXPECT_EQ(FileRefusal("[events]\nemit = \"delivery.*\"\n"),
            "config: [events] emit has the wrong type (expected an array of strings)");
}

TEST_F(ConfigTest, ANotifyTargetMayNotTakeChoparsOwnEmittedEvents) {
  constexpr const char* kNotifyAll = "[[relay.targets]]\nkind = \"notify\"\ntitle = \"x\"\n";
  EXPECT_EQ(
      FileRefusal(std::string("[events]\nemit = [\"delivery.*\"]\n") + kNotifyAll),
      "config: [[relay.targets]] notify target \"notify\" takes chopar's own event delivery.sent "
      "([events] emit), whose notification would emit again: give it `types` that leave it out");
  // Without [events], or with types that leave chopar's events out, it is fine.
  EXPECT_EQ(Load(kNotifyAll).relay.targets.size(), 1u);
  EXPECT_EQ(Load(std::string("[events]\nemit = [\"delivery.*\"]\n") + kNotifyAll +
                 "types = [\"task.*\"]\n")
                .relay.targets.size(),
            1u);
}

TEST_F(ConfigTest, RelayNumbersMustMakeSense) {
  EXPECT_EQ(FileRefusal("[relay]\nbatch = 0\n"), "config: [relay] batch must be positive");
  EXPECT_EQ(FileRefusal("[relay]\nretention_days = -1\n"),
            "config: [relay] retention_days must be >= 0");
  EXPECT_EQ(FileRefusal("[relay]\nbackoff_initial_seconds = 10\nbackoff_max_seconds = 5\n"),
            "config: [relay] backoff_max_seconds must be at least backoff_initial_seconds");
}

}  // namespace
}  // namespace chopar::app
