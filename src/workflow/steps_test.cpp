// A template's workflow steps: what parses, what is refused and which field
// the error names, the shown form round-tripping, the old settings shown as
// steps, and AdvanceRun's decisions on an injected time.
#include "workflow/steps.hpp"

#include <gtest/gtest.h>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "workflow/step_progress.hpp"

namespace chopar::workflow {
namespace {

using nlohmann::json;

std::string FieldOfError(const json& steps) {
  try {
    (void)ParseSteps(steps);
  } catch (const core::RequestError& e) {
    return e.field().value_or("") + " | " + e.what();
  }
  return "parsed";
}

TEST(StepsParsing, EveryKindParsesAndShowsAsGiven) {
  const json given = json::parse(R"([
    {"type": "throttle", "limit": 3, "window_seconds": 3600},
    {"type": "delay", "seconds": 600},
    {"type": "delay", "until": "09:00"},
    {"type": "channel", "channel": "push", "name": "first", "condition": "notification.seen == false"},
    {"type": "channel", "first_of": ["sms", "email"]},
    {"type": "channel", "all_of": ["email", "telegram"]}])");
  const auto steps = ParseSteps(given);
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[3].pick, ChannelPick::kOne);
  EXPECT_EQ(steps[4].pick, ChannelPick::kFirstOf);
  EXPECT_EQ(steps[5].pick, ChannelPick::kAllOf);
  EXPECT_EQ(StepsJson(steps), given);
  EXPECT_EQ(ChannelsOf(steps).size(), 4u);
}

TEST(StepsParsing, RefusalsNameTheMember) {
  EXPECT_TRUE(FieldOfError(json::array()).starts_with("steps |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "wait"}])")).starts_with("steps[0].type |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "channel", "channel": "fax"}])"))
                  .starts_with("steps[0].channel |"));
  EXPECT_TRUE(
      FieldOfError(json::parse(R"([{"type": "channel", "channel": "sms", "first_of": ["email"]}])"))
          .starts_with("steps[0].channel |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "channel", "first_of": ["sms", "sms"]}])"))
                  .starts_with("steps[0].first_of |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "delay", "seconds": 0}])"))
                  .starts_with("steps[0].seconds |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "delay", "until": "25:00"}])"))
                  .starts_with("steps[0].until |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "throttle", "limit": 1}])"))
                  .starts_with("steps[0].window_seconds |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "digest", "window_seconds": 60},
                                           {"type": "digest", "window_seconds": 60}])"))
                  .starts_with("steps[1].type |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "delay", "seconds": 1, "extra": 1}])"))
                  .starts_with("steps[0].extra |"));
  EXPECT_TRUE(FieldOfError(json::parse(R"([{"type": "delay", "seconds": 1, "name": "a"},
                                           {"type": "delay", "seconds": 1, "name": "a"}])"))
                  .starts_with("steps[1].name |"));
  json many = json::array();
  for (int i = 0; i < 21; ++i) many.push_back({{"type", "delay"}, {"seconds", 1}});
  EXPECT_TRUE(FieldOfError(many).starts_with("steps |"));
}

TEST(StepsParsing, AConditionSyntaxErrorSaysWhere) {
  const std::string error = FieldOfError(json::parse(
      R"([{"type": "channel", "channel": "email", "condition": "notification.seen == "}])"));
  EXPECT_TRUE(error.starts_with("steps[0].condition |")) << error;
  EXPECT_NE(error.find("position"), std::string::npos) << error;
}

TEST(StepsParsing, TheOldSettingsShowAsSteps) {
  EXPECT_TRUE(ConvertedStepsJson(nullptr, nullptr, nullptr).is_null());
  const json steps =
      ConvertedStepsJson(nullptr, json{{"limit", 2}, {"window_seconds", 60}},
                         json{{"after_seconds", 900}, {"channels", json::array({"email"})}});
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0]["type"], "throttle");
  EXPECT_EQ(steps[1]["type"], "channel");
  EXPECT_EQ(std::ranges::count(steps[1]["all_of"], json("email")), 0);
  EXPECT_EQ(steps[2], (json{{"type", "delay"}, {"seconds", 900}}));
  EXPECT_EQ(steps[3]["condition"], "notification.read == false");
}

RunInputs Inputs(std::vector<core::ChannelKind> receivable, bool seen) {
  RunInputs inputs;
  inputs.context = {{"data", json::object()},
                    {"user", {{"data", {{"plan", "pro"}}}}},
                    {"notification", {{"seen", seen}}}};
  inputs.receivable = std::move(receivable);
  inputs.now = core::ParseRfc3339("2026-12-07T08:00:00Z").value();
  inputs.timezone = "Asia/Tashkent";
  inputs.pass_throttle = [](const ThrottleSettings&) { return true; };
  return inputs;
}

TEST(AdvanceRun, DelayUntilIsTheNextWallTimeInTheUsersZone) {
  const auto steps = ParseSteps(json::parse(R"([{"type": "delay", "until": "09:00"}])"));
  // 08:00Z is 13:00 in Tashkent: the next 09:00 there is tomorrow 04:00Z.
  const RunAdvance advance = AdvanceRun(steps, {}, Inputs({}, false));
  EXPECT_EQ(advance.status, RunStatus::kActive);
  EXPECT_EQ(core::FormatRfc3339(*advance.due_at), "2026-12-08T04:00:00Z");
}

TEST(AdvanceRun, FirstOfSkipsWhatTheUserCannotReceiveAndFallsToTheNext) {
  const auto steps =
      ParseSteps(json::parse(R"([{"type": "channel", "first_of": ["push", "sms", "email"]}])"));
  const RunAdvance first =
      AdvanceRun(steps, {}, Inputs({core::ChannelKind::kEmail, core::ChannelKind::kPush}, false));
  EXPECT_EQ(first.status, RunStatus::kWaiting);
  ASSERT_EQ(first.sends.size(), 1u);
  EXPECT_EQ(first.sends[0], (RunAdvance::Send{core::ChannelKind::kPush, 0, true}));
  RunState state{.step = 0,
                 .tried = first.tried,
                 .outcomes = first.outcomes,
                 .ended = DeliveryEnd{7, core::ChannelKind::kPush, "failed", "address gone"},
                 .digest = std::nullopt};
  const RunAdvance second = AdvanceRun(
      steps, state, Inputs({core::ChannelKind::kEmail, core::ChannelKind::kPush}, false));
  ASSERT_EQ(second.sends.size(), 1u);
  EXPECT_EQ(second.sends[0].channel, core::ChannelKind::kEmail) << "sms: no phone";
  state = {.step = 0,
           .tried = second.tried,
           .outcomes = second.outcomes,
           .ended = DeliveryEnd{8, core::ChannelKind::kEmail, "sent", std::nullopt},
           .digest = std::nullopt};
  const RunAdvance done = AdvanceRun(
      steps, state, Inputs({core::ChannelKind::kEmail, core::ChannelKind::kPush}, false));
  EXPECT_EQ(done.status, RunStatus::kDone);
  ASSERT_EQ(done.outcomes.size(), 1u);
  EXPECT_EQ(done.outcomes[0]["outcome"], "sent");
  EXPECT_EQ(done.outcomes[0]["channel"], "email");
  EXPECT_EQ(done.outcomes[0]["delivery_id"], 8);
}

TEST(AdvanceRun, AFalseConditionSkipsTheStepAndALaterStepSeesIt) {
  const auto steps = ParseSteps(json::parse(R"([
    {"type": "channel", "channel": "push", "name": "nudge", "condition": "notification.seen == false"},
    {"type": "channel", "all_of": ["email"], "condition": "step.nudge.outcome == \"condition_false\""}])"));
  const RunAdvance advance = AdvanceRun(steps, {}, Inputs({core::ChannelKind::kEmail}, true));
  EXPECT_EQ(advance.outcomes[0]["outcome"], "condition_false");
  EXPECT_EQ(advance.outcomes[1]["outcome"], "queued");
  EXPECT_EQ(advance.status, RunStatus::kDone);
  ASSERT_EQ(advance.sends.size(), 1u);
}

TEST(AdvanceRun, AChannelStepWaitsOnlyWhenALaterConditionReadsItsOutcome) {
  const auto at_once = ParseSteps(json::parse(R"([{"type": "channel", "channel": "email"},
                                                 {"type": "delay", "seconds": 60},
                                                 {"type": "channel", "channel": "push",
                                                  "condition": "notification.read == false"}])"));
  EXPECT_FALSE(at_once[0].waits);
  const RunAdvance first =
      AdvanceRun(at_once, {}, Inputs({core::ChannelKind::kEmail, core::ChannelKind::kPush}, false));
  EXPECT_EQ(first.status, RunStatus::kActive) << "the email queued, the delay set, in one advance";
  ASSERT_EQ(first.sends.size(), 1u);
  EXPECT_EQ(first.sends[0], (RunAdvance::Send{core::ChannelKind::kEmail, 0, false}));
  EXPECT_EQ(first.step, 2);
  EXPECT_EQ(first.outcomes[0]["outcome"], "queued");
  EXPECT_EQ(first.outcomes[0]["channel"], "email");

  const auto reads = ParseSteps(json::parse(R"([{"type": "channel", "channel": "email"},
                                               {"type": "channel", "channel": "push",
                                                "condition": "steps[0].outcome != \"sent\""}])"));
  EXPECT_TRUE(reads[0].waits);
  EXPECT_FALSE(reads[1].waits);
  const RunAdvance waiting = AdvanceRun(reads, {}, Inputs({core::ChannelKind::kEmail}, false));
  EXPECT_EQ(waiting.status, RunStatus::kWaiting);

  const auto twice = ParseSteps(json::parse(R"([{"type": "channel", "channel": "email"},
                                               {"type": "channel", "channel": "email"}])"));
  const RunAdvance once = AdvanceRun(twice, {}, Inputs({core::ChannelKind::kEmail}, false));
  EXPECT_EQ(once.sends.size(), 1u) << "one delivery per channel an advance";
  EXPECT_EQ(once.step, 1);
  EXPECT_EQ(once.status, RunStatus::kActive);
}

RunInputs AtNotify(std::vector<core::ChannelKind> receivable) {
  RunInputs inputs = Inputs(std::move(receivable), false);
  inputs.context = {{"data", {{"priority", 3}}},
                    {"tenant", nullptr},
                    {"user", {{"data", {{"plan", "pro"}}}}},
                    {"notification", {{"seen", false}, {"read", false}, {"archived", false}}}};
  inputs.at_notify = true;
  return inputs;
}

// The steps after a delay are held with the notification (canceled if read
// when due) only when the advancer would decide them on the read state
// alone: every other shape stops at the delay as before.
TEST(AdvanceRun, AtNotifyStepsAfterADelayOnTheReadStateAloneAreHeld) {
  const std::vector<core::ChannelKind> both = {core::ChannelKind::kEmail,
                                               core::ChannelKind::kTelegram};
  const auto held = ParseSteps(json::parse(R"([{"type": "channel", "channel": "email"},
                                              {"type": "delay", "seconds": 60},
                                              {"type": "channel", "channel": "telegram",
                                               "condition": "!notification.read"}])"));
  const RunAdvance advance = AdvanceRun(held, {}, AtNotify(both));
  EXPECT_EQ(advance.status, RunStatus::kDone);
  ASSERT_EQ(advance.sends.size(), 1u);
  EXPECT_EQ(advance.sends[0].channel, core::ChannelKind::kEmail);
  EXPECT_EQ(advance.held, std::vector<core::ChannelKind>{core::ChannelKind::kTelegram});
  EXPECT_EQ(core::FormatRfc3339(*advance.held_until), "2026-12-07T08:01:00Z");
  ASSERT_EQ(advance.outcomes.size(), 3u);
  EXPECT_EQ(advance.outcomes[2]["outcome"], "scheduled");
  EXPECT_EQ(advance.outcomes[2]["channel"], "telegram");
  EXPECT_EQ(advance.outcomes[2]["until"], "2026-12-07T08:01:00Z");
  EXPECT_EQ(advance.step, 3);

  const auto stops_at_delay = [&](const char* third, const std::vector<core::ChannelKind>& can) {
    const auto steps = ParseSteps(json::parse(
        std::string(
            R"([{"type": "channel", "channel": "email"}, {"type": "delay", "seconds": 60},)") +
        third + "]"));
    const RunAdvance stopped = AdvanceRun(steps, {}, AtNotify(can));
    return stopped.status == RunStatus::kActive && stopped.held.empty() && stopped.step == 2;
  };
  const char* unless_read =
      R"({"type": "channel", "channel": "telegram", "condition": "notification.read == false"})";
  EXPECT_FALSE(stops_at_delay(unless_read, both)) << "held";
  EXPECT_TRUE(stops_at_delay(R"({"type": "channel", "channel": "telegram"})", both))
      << "no condition: sent even if read, which a held delivery is not";
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "telegram", "condition": "notification.seen == false"})",
      both));
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "telegram", "condition": "!notification.read || notification.archived"})",
      both));
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "telegram", "condition": "!notification.read && user.data.plan == \"pro\""})",
      both))
      << "the user's data may change before the step is due";
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "telegram", "condition": "!notification.read && data.priority > 1"})",
      both))
      << "it reads more than the notification's state";
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "telegram", "condition": "!notification.read && notification.seen"})",
      both));
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "first_of": ["telegram"], "condition": "notification.read == false"})",
      both));
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "email", "condition": "notification.read == false"})",
      both))
      << "a second email of the notification: one delivery per channel";
  EXPECT_TRUE(stops_at_delay(unless_read, {core::ChannelKind::kEmail}))
      << "skipped or not is decided when due";
  EXPECT_TRUE(stops_at_delay(
      R"({"type": "channel", "channel": "telegram", "condition": "notification.read == false"},
         {"type": "delay", "seconds": 5})",
      both));
}

// Entries are stored without their null members; the API shows each of
// them, null where it was left out.
TEST(AdvanceRun, OutcomesAreStoredWithoutNullsAndShownWithEveryMember) {
  const auto steps =
      ParseSteps(json::parse(R"([{"type": "delay", "seconds": 5, "name": "wait"}])"));
  const RunAdvance advance = AdvanceRun(steps, {}, Inputs({}, false));
  ASSERT_EQ(advance.outcomes.size(), 1u);
  EXPECT_FALSE(advance.outcomes[0].contains("channel"));
  EXPECT_FALSE(advance.outcomes[0].contains("detail"));
  EXPECT_EQ(WithNullMembers(advance.outcomes),
            json::parse(R"([{"index": 0, "type": "delay", "outcome": "delayed", "name": "wait",
                             "channel": null, "delivery_id": null, "at": "2026-12-07T08:00:00Z",
                             "until": "2026-12-07T08:00:05Z", "detail": null}])"));
  EXPECT_EQ(WithNullMembers(json()), json::array());
}

// Entries written before their delivery had an id get it when shown: the
// first delivery of their channel no other entry names, in step order.
TEST(WithDeliveryIds, AQueuedOrScheduledEntryNamesTheFirstDeliveryOfItsChannelNotNamedElsewhere) {
  const json steps = json::parse(R"([
    {"index": 0, "outcome": "queued", "channel": "email", "delivery_id": null},
    {"index": 1, "outcome": "sent", "channel": "push", "delivery_id": 12},
    {"index": 2, "outcome": "delayed", "channel": null, "delivery_id": null},
    {"index": 3, "outcome": "queued", "channel": null, "delivery_id": null, "detail": "email, sms"},
    {"index": 4, "outcome": "scheduled", "channel": "email", "delivery_id": null},
    {"index": 5, "outcome": "scheduled", "channel": "push", "delivery_id": null},
    {"index": 6, "outcome": "skipped", "channel": "sms", "delivery_id": null},
    {"index": 7, "outcome": "queued", "channel": "telegram", "delivery_id": null}])");
  const json shown = WithDeliveryIds(
      steps,
      {{10, "email"}, {11, "push"}, {12, "push"}, {13, "email"}, {14, "sms"}, {15, "email"}});
  const auto ids = [&] {
    std::vector<json> out;
    for (const json& entry : shown) out.push_back(entry["delivery_id"]);
    return out;
  }();
  EXPECT_EQ(ids, (std::vector<json>{10, 12, nullptr, nullptr, 13, 11, nullptr, nullptr}));
  EXPECT_EQ(WithDeliveryIds(json::array(), {{1, "email"}}), json::array());
}

TEST(AdvanceRun, ACanceledDeliveryCancelsTheRun) {
  const auto steps = ParseSteps(json::parse(R"([{"type": "channel", "channel": "email"},
                                                {"type": "channel", "channel": "push"}])"));
  const RunState state{.step = 0,
                       .tried = {"email"},
                       .outcomes = json::array(),
                       .ended = DeliveryEnd{1, core::ChannelKind::kEmail, "canceled", "canceled"},
                       .digest = std::nullopt};
  const RunAdvance advance = AdvanceRun(steps, state, Inputs({core::ChannelKind::kPush}, false));
  EXPECT_EQ(advance.status, RunStatus::kCanceled);
  EXPECT_TRUE(advance.sends.empty());
}

}  // namespace
}  // namespace chopar::workflow
