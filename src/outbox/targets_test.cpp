// Event documents, NATS subjects and the checks of [[relay.targets]].
#include "outbox/targets.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/time_format.hpp"
#include "outbox/event.hpp"
#include "outbox/nats_target.hpp"

namespace chopar::outbox {
namespace {

TEST(EventBodyTest, IsTheDocumentedJsonWithThePayloadAsStored) {
  Event event;
  event.event_id = "0b6c3f43-4d3b-4c51-9a0e-2f8a7c6b1d21";
  event.type = "task.created";
  event.user_id = 42;
  event.payload = R"({"text": "Non olish", "n": [1, 2]})";
  event.created_at = *core::ParseRfc3339("2026-10-28T13:05:00.250Z");
  EXPECT_EQ(EventBody(event),
            R"({"id":"0b6c3f43-4d3b-4c51-9a0e-2f8a7c6b1d21","type":"task.created","user_id":42,)"
            R"("created_at":"2026-10-28T13:05:00Z","payload":{"text": "Non olish", "n": [1, 2]}})");
  event.user_id.reset();
  EXPECT_TRUE(nlohmann::json::parse(EventBody(event))["user_id"].is_null());
}

TEST(EventBodyTest, ReadsPostgresTextArrays) {
  EXPECT_EQ(ParseTextArray("{}"), std::vector<std::string>{});
  EXPECT_EQ(ParseTextArray("{webhook}"), std::vector<std::string>{"webhook"});
  EXPECT_EQ(ParseTextArray("{webhook,nats-2}"), (std::vector<std::string>{"webhook", "nats-2"}));
}

TEST(NatsSubjectTest, TheTypeFillsItsTokenAndTheStreamCoversEverySubject) {
  EXPECT_EQ(SubjectFor("chopar.events.{type}", "task.created"), "chopar.events.task.created");
  EXPECT_EQ(SubjectFor("events", "task.created"), "events");
  EXPECT_EQ(StreamSubject("chopar.events.{type}"), "chopar.events.>");
  EXPECT_EQ(StreamSubject("{type}"), ">");
  EXPECT_EQ(StreamSubject("app.{type}.v1"), "app.>");
  EXPECT_EQ(StreamSubject("fixed.subject"), "fixed.subject");
  EXPECT_EQ(StreamSubject("chopar.events-{type}"), std::nullopt);
  EXPECT_EQ(StreamSubject("{type}.{type}"), std::nullopt);
}

TargetSettings Webhook() {
  TargetSettings t;
  t.kind = "webhook";
  t.url = "https://app.example/hooks";
  t.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  return t;
}

std::string Refusal(std::vector<TargetSettings> targets) {
  try {
    ValidateTargets(targets);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ValidateTargetsTest, NamesTargetsByKindAndRefusesTakenNames) {
  TargetSettings nats;
  nats.kind = "nats";
  nats.url = "nats://127.0.0.1:4222";
  TargetSettings notify;
  notify.kind = "notify";
  notify.title = "{{payload.title}}";
  std::vector<TargetSettings> targets = {Webhook(), nats, Webhook(), notify};
  ValidateTargets(targets);
  EXPECT_EQ(targets[0].name, "webhook");
  EXPECT_EQ(targets[1].name, "nats");
  EXPECT_EQ(targets[2].name, "webhook-2");
  EXPECT_EQ(targets[3].name, "notify");

  TargetSettings named = Webhook();
  named.name = "webhook-2";
  EXPECT_EQ(Refusal({Webhook(), Webhook(), named}),
            "[[relay.targets]] #3 (webhook): name \"webhook-2\" is taken by an earlier target");
  named.name = "Billing";
  EXPECT_EQ(Refusal({named}),
            "[[relay.targets]] #1 (webhook): name must be lower-case letters, digits, '_' or '-'");
}

TEST(ValidateTargetsTest, RefusesWhatEachKindCannotWorkWith) {
  TargetSettings t = Webhook();
  t.secret = "plain";
  EXPECT_EQ(
      Refusal({t}),
      "[[relay.targets]] #1 (webhook): secret must be a Standard Webhooks secret, whsec_<base64>");
  t = Webhook();
  t.url = "ftp://x";
  EXPECT_EQ(Refusal({t}), "[[relay.targets]] #1 (webhook): url must be an http(s) URL");
  t = Webhook();
  t.max_in_flight = 0;
  EXPECT_EQ(Refusal({t}), "[[relay.targets]] #1 (webhook): max_in_flight must be from 1 to 1024");
  t.max_in_flight = 1025;
  EXPECT_EQ(Refusal({t}), "[[relay.targets]] #1 (webhook): max_in_flight must be from 1 to 1024");
  t = Webhook();
  t.types = {"task created"};
  EXPECT_EQ(Refusal({t}),
            "[[relay.targets]] #1 (webhook): event type pattern \"task created\" holds ' '");

  TargetSettings nats;
  nats.kind = "nats";
  nats.url = "nats://127.0.0.1:4222";
  nats.subject = "events-{type}";
  EXPECT_EQ(Refusal({nats}),
            "[[relay.targets]] #1 (nats): subject must be dot-separated tokens with {type} as a "
            "whole token at most once");

  TargetSettings notify;
  notify.kind = "notify";
  EXPECT_EQ(Refusal({notify}), "[[relay.targets]] #1 (notify): title is required");
  notify.title = "x";
  notify.channels = {"pigeon"};
  EXPECT_EQ(Refusal({notify}),
            "[[relay.targets]] #1 (notify): unknown channel \"pigeon\"; expected email, telegram, "
            "push or sms");

  TargetSettings unknown;
  unknown.kind = "redis";
  EXPECT_EQ(Refusal({unknown}),
            "[[relay.targets]] #1 (redis): kind must be webhook, nats or notify");
}

TEST(ValidateTargetsTest, KnowsWhichKeysBelongToWhichKind) {
  EXPECT_TRUE(TargetKeyApplies("webhook", "secret"));
  EXPECT_TRUE(TargetKeyApplies("nats", "types"));
  EXPECT_FALSE(TargetKeyApplies("nats", "secret"));
  EXPECT_FALSE(TargetKeyApplies("webhook", "title"));
  EXPECT_TRUE(TargetKeyApplies("webhook", "max_in_flight"));
  EXPECT_FALSE(TargetKeyApplies("nats", "max_in_flight"));
  EXPECT_TRUE(TargetKeyApplies("notify", "channels"));
  EXPECT_FALSE(TargetKeyApplies("notify", "url"));
}

}  // namespace
}  // namespace chopar::outbox
