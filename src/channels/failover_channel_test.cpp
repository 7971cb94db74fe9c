#include "channels/failover_channel.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <mutex>

#include "channels/outcome_unknown.hpp"

namespace chopar::channels {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A provider whose answer per message a test decides, and which keeps the
// delivery ids it was handed.
class ScriptedProvider final : public Channel {
 public:
  explicit ScriptedProvider(std::function<Outcome(const Message&)> answer)
      : answer_(std::move(answer)) {}
  std::vector<Outcome> Send(std::span<const Message> messages) override {
    std::vector<Outcome> outcomes;
    for (const Message& m : messages) {
      handed.push_back(m.delivery_id);
      outcomes.push_back(answer_(m));
    }
    return outcomes;
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "scripted"; }

  std::vector<std::int64_t> handed;
  std::function<Outcome(const Message&)> answer_;
};

Outcome Accepts(const Message& m) { return Outcome::Sent("id-" + std::to_string(m.delivery_id)); }
Outcome Refuses(const Message&) { return Outcome::Retry("primary: connection refused"); }
Outcome Unavailable(const Message&) { return Outcome::Retry("primary 503: try later"); }
Outcome TimesOut(const Message&) { return OutcomeUnknown("primary", "timeout after 5 s"); }

std::vector<Message> Messages(std::int64_t first, std::int64_t count) {
  std::vector<Message> messages;
  for (std::int64_t id = first; id < first + count; ++id) {
    Message m;
    m.delivery_id = id;
    m.channel = core::ChannelKind::kEmail;
    m.email = "user" + std::to_string(id) + "@example.com";
    messages.push_back(m);
  }
  return messages;
}

class FailoverChannelTest : public ::testing::Test {
 protected:
  // Two providers, "primary" then "secondary", answering as given.
  void Build(std::function<Outcome(const Message&)> primary,
             std::function<Outcome(const Message&)> secondary, BreakerSettings breaker = {},
             int primary_weight = 0, int secondary_weight = 0) {
    auto p = std::make_unique<ScriptedProvider>(std::move(primary));
    auto s = std::make_unique<ScriptedProvider>(std::move(secondary));
    primary_ = p.get();
    secondary_ = s.get();
    std::vector<ProviderSlot> slots;
    slots.push_back({"primary", "smtp", std::move(p), primary_weight, breaker});
    slots.push_back({"secondary", "ses", std::move(s), secondary_weight, breaker});
    channel_ = std::make_unique<FailoverChannel>("email", std::move(slots), clock_, &metrics_);
  }
  std::vector<Outcome> SendAll(std::int64_t first, std::int64_t count) {
    const std::vector<Message> messages = Messages(first, count);
    return channel_->Send(messages);
  }
  CircuitState PrimaryState() const { return channel_->Health()[0].circuit.state; }

  core::SimulatedClock clock_{core::TimePoint(std::chrono::hours(24 * 365 * 50))};
  core::MetricsRegistry metrics_;
  ScriptedProvider* primary_ = nullptr;
  ScriptedProvider* secondary_ = nullptr;
  std::unique_ptr<FailoverChannel> channel_;
};

TEST_F(FailoverChannelTest, AHealthyPrimarySendsEverythingAndTheSecondaryNothing) {
  Build(Accepts, Accepts);
  const std::vector<Outcome> outcomes = SendAll(1, 3);
  ASSERT_EQ(outcomes.size(), 3u);
  for (const Outcome& o : outcomes) {
    EXPECT_EQ(o.kind, OutcomeKind::kSent);
    EXPECT_EQ(o.provider, "primary");
  }
  EXPECT_THAT(primary_->handed, ElementsAre(1, 2, 3));
  EXPECT_THAT(secondary_->handed, IsEmpty());
  EXPECT_EQ(channel_->ProviderName(), "primary>secondary");
}

TEST_F(FailoverChannelTest, RefusedConnectionsMoveEachMessageToTheSecondaryOnce) {
  Build(Refuses, Accepts, {.failure_threshold = 100, .open_for = std::chrono::seconds(30)});
  const std::vector<Outcome> outcomes = SendAll(1, 4);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    EXPECT_EQ(outcomes[i].kind, OutcomeKind::kSent);
    EXPECT_EQ(outcomes[i].provider, "secondary");
    EXPECT_EQ(outcomes[i].provider_message_id, "id-" + std::to_string(i + 1));
  }
  EXPECT_THAT(secondary_->handed, ElementsAre(1, 2, 3, 4));
}

TEST_F(FailoverChannelTest, A503MovesOnLikeARefusal) {
  Build(Unavailable, Accepts, {.failure_threshold = 100, .open_for = std::chrono::seconds(30)});
  const std::vector<Outcome> outcomes = SendAll(7, 2);
  EXPECT_EQ(outcomes[0].provider, "secondary");
  EXPECT_EQ(outcomes[1].provider, "secondary");
  EXPECT_THAT(primary_->handed, ElementsAre(7, 8));
  EXPECT_THAT(secondary_->handed, ElementsAre(7, 8));
}

TEST_F(FailoverChannelTest, AnUnansweredSendIsFinalAndNeverHandedToTheSecondary) {
  Build(TimesOut, Accepts);
  const std::vector<Outcome> outcomes = SendAll(1, 2);
  for (const Outcome& o : outcomes) {
    EXPECT_EQ(o.kind, OutcomeKind::kUnknown);
    EXPECT_EQ(o.provider, "primary");
  }
  EXPECT_THAT(secondary_->handed, IsEmpty());
}

TEST_F(FailoverChannelTest, ARetryTheProviderMayHoldStaysWithIt) {
  Build(
      [](const Message&) {
        Outcome busy = Outcome::Retry("another sender is sending this delivery right now");
        busy.provider_may_hold = true;
        return busy;
      },
      Accepts);
  const std::vector<Outcome> outcomes = SendAll(1, 1);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].provider, "primary");
  EXPECT_THAT(secondary_->handed, IsEmpty());
  // Nor is it a failure of the provider.
  EXPECT_EQ(channel_->Health()[0].circuit.consecutive_failures, 0);
}

TEST_F(FailoverChannelTest, APermanentRefusalOfOneMessageIsFinalAndNotAFailure) {
  Build([](const Message&) { return Outcome::Permanent("550 no such mailbox"); }, Accepts);
  const std::vector<Outcome> outcomes = SendAll(1, 1);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_THAT(secondary_->handed, IsEmpty());
  EXPECT_EQ(PrimaryState(), CircuitState::kClosed);
}

TEST_F(FailoverChannelTest, WhenEveryProviderRetriesTheLastRetryStands) {
  Build(Unavailable,
        [](const Message&) { return Outcome::Retry("secondary 429", std::chrono::seconds(17)); });
  const std::vector<Outcome> outcomes = SendAll(1, 1);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].provider, "secondary");
  EXPECT_EQ(outcomes[0].retry_after, std::chrono::seconds(17));
}

TEST_F(FailoverChannelTest, TheCircuitOpensHalfOpensWithOneProbeAndCloses) {
  bool primary_up = false;
  Build([&](const Message& m) { return primary_up ? Accepts(m) : Refuses(m); }, Accepts,
        {.failure_threshold = 3, .open_for = std::chrono::seconds(30)});
  (void)SendAll(1, 3);  // three failures in a row
  EXPECT_EQ(PrimaryState(), CircuitState::kOpen);
  EXPECT_EQ(channel_->Health()[0].circuit.consecutive_failures, 3);

  // Open: the primary is not even asked.
  (void)SendAll(10, 2);
  EXPECT_THAT(primary_->handed, ElementsAre(1, 2, 3));
  EXPECT_THAT(secondary_->handed, ElementsAre(1, 2, 3, 10, 11));

  // After open_for: one probe goes to the primary, the rest of the batch
  // to the secondary; the probe fails and the circuit opens again.
  clock_.Advance(std::chrono::seconds(30));
  EXPECT_EQ(PrimaryState(), CircuitState::kHalfOpen);
  (void)SendAll(20, 3);
  EXPECT_THAT(primary_->handed, ElementsAre(1, 2, 3, 20));
  EXPECT_THAT(secondary_->handed, ElementsAre(1, 2, 3, 10, 11, 21, 22, 20));
  EXPECT_EQ(PrimaryState(), CircuitState::kOpen);

  // The next probe succeeds: closed, and the primary takes everything.
  primary_up = true;
  clock_.Advance(std::chrono::seconds(30));
  (void)SendAll(30, 1);
  EXPECT_EQ(PrimaryState(), CircuitState::kClosed);
  (void)SendAll(40, 2);
  EXPECT_THAT(primary_->handed, ElementsAre(1, 2, 3, 20, 30, 40, 41));
  EXPECT_THAT(secondary_->handed, ElementsAre(1, 2, 3, 10, 11, 21, 22, 20));
}

TEST_F(FailoverChannelTest, TheCircuitsAreInTheMetrics) {
  Build(Refuses, Accepts, {.failure_threshold = 1, .open_for = std::chrono::seconds(60)});
  (void)SendAll(1, 1);
  const std::string text = metrics_.Render();
  EXPECT_THAT(text, ::testing::HasSubstr(
                        R"(chopar_provider_circuit_state{channel="email",provider="primary"} 1)"));
  EXPECT_THAT(text,
              ::testing::HasSubstr(
                  R"(chopar_provider_circuit_state{channel="email",provider="secondary"} 0)"));
  EXPECT_THAT(
      text,
      ::testing::HasSubstr(
          R"(chopar_provider_sends_total{channel="email",provider="secondary",result="sent"} 1)"));
  EXPECT_THAT(text,
              ::testing::HasSubstr(
                  R"(chopar_provider_failovers_total{channel="email",provider="primary"} 1)"));
}

TEST_F(FailoverChannelTest, EveryCircuitOpenAsksToRetryWhenTheFirstHalfOpens) {
  Build(Refuses, Refuses, {.failure_threshold = 1, .open_for = std::chrono::seconds(60)});
  (void)SendAll(1, 1);  // both open now
  clock_.Advance(std::chrono::seconds(20));
  const std::vector<Outcome> outcomes = SendAll(2, 1);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_THAT(outcomes[0].detail, ::testing::HasSubstr("every provider's circuit is open"));
  EXPECT_EQ(outcomes[0].retry_after, std::chrono::seconds(40));
  EXPECT_THAT(primary_->handed, ElementsAre(1));
}

TEST_F(FailoverChannelTest, WeightsShareFirstAttemptsAndEachIdAlwaysStartsAtTheSameProvider) {
  const std::vector<int> weights = {3, 1};
  std::map<std::size_t, int> starts;
  for (std::int64_t id = 1; id <= 4000; ++id) {
    const std::size_t start = FailoverChannel::StartOf(id, weights);
    EXPECT_EQ(start, FailoverChannel::StartOf(id, weights));
    ++starts[start];
  }
  // 3:1 within a few percent.
  EXPECT_NEAR(starts[0], 3000, 150);
  EXPECT_NEAR(starts[1], 1000, 150);
  EXPECT_EQ(FailoverChannel::StartOf(5, {0, 0}), 0u);
  EXPECT_EQ(FailoverChannel::StartOf(5, {0, 2}), 1u);
}

TEST_F(FailoverChannelTest, AStandbyStartedAtByWeightFallsBackToTheFirst) {
  // Everything starts at the secondary (weight), which refuses: the primary takes it.
  Build(Accepts, Refuses, {.failure_threshold = 100, .open_for = std::chrono::seconds(30)}, 0, 1);
  const std::vector<Outcome> outcomes = SendAll(1, 2);
  EXPECT_EQ(outcomes[0].provider, "primary");
  EXPECT_THAT(secondary_->handed, ElementsAre(1, 2));
  EXPECT_THAT(primary_->handed, ElementsAre(1, 2));
}

TEST(FailoverChannelConstruction, RefusesAnEmptyListAndRepeatedNames) {
  core::SimulatedClock clock{core::TimePoint{}};
  EXPECT_THROW(FailoverChannel("email", {}, clock, nullptr), std::invalid_argument);
  std::vector<ProviderSlot> twice;
  twice.push_back({"ses", "ses", std::make_unique<ScriptedProvider>(Accepts), 0, {}});
  twice.push_back({"ses", "ses", std::make_unique<ScriptedProvider>(Accepts), 0, {}});
  EXPECT_THROW(FailoverChannel("email", std::move(twice), clock, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::channels
