#include "delivery/record.hpp"

#include <gtest/gtest.h>

#include "delivery/test_support.hpp"

namespace chopar::delivery {
namespace {

using channels::Outcome;
using std::chrono::seconds;

ClaimedDelivery Claimed(core::ChannelKind channel, int attempt) {
  ClaimedDelivery c;
  c.message.delivery_id = 5;
  c.message.channel = channel;
  c.message.attempt = attempt;
  c.message.telegram_chat_id = 4503599627370495;
  c.message.push_targets = {{11, "https://push.example/a", "", ""}, {12, "https://push.example/b", "", ""}};
  c.claim_token = "token";
  return c;
}

class PlanOutcomeTest : public ::testing::Test {
 protected:
  OutcomeUpdate Plan(const ClaimedDelivery& c, const Outcome& o) {
    return PlanOutcome(c, o, settings_, random_);
  }
  WorkerSettings settings_;
  testing::TopRandom random_;
};

TEST_F(PlanOutcomeTest, SentKeepsProviderIdAndPreviousReason) {
  const auto u = Plan(Claimed(core::ChannelKind::kEmail, 1), Outcome::Sent("msg-1"));
  EXPECT_EQ(u.status, "sent");
  EXPECT_EQ(u.provider_message_id, "msg-1");
  EXPECT_EQ(u.reason, std::nullopt);
}

TEST_F(PlanOutcomeTest, RetryBacksOffUntilTheLastAttempt) {
  auto u = Plan(Claimed(core::ChannelKind::kEmail, 4), Outcome::Retry("timeout"));
  EXPECT_EQ(u.status, "queued");
  EXPECT_EQ(u.retry_in, seconds(8));
  EXPECT_EQ(u.reason, "attempt 4 of 8: timeout");

  u = Plan(Claimed(core::ChannelKind::kEmail, 8), Outcome::Retry("timeout"));
  EXPECT_EQ(u.status, "failed");
  EXPECT_EQ(u.reason, "gave up after 8 attempts: timeout");
}

TEST_F(PlanOutcomeTest, RetryAfterWinsOverBackoff) {
  const auto u = Plan(Claimed(core::ChannelKind::kSms, 1), Outcome::Retry("429", seconds(300)));
  EXPECT_EQ(u.retry_in, seconds(300));
}

TEST_F(PlanOutcomeTest, AddressGoneNamesWhatToCleanUp) {
  auto u = Plan(Claimed(core::ChannelKind::kTelegram, 1), Outcome::AddressGone("403"));
  EXPECT_EQ(u.status, "failed");
  EXPECT_EQ(u.telegram_chat_gone, 4503599627370495);
  EXPECT_TRUE(u.gone_push.empty());

  Outcome one_gone = Outcome::AddressGone("410");
  one_gone.gone_push_subscriptions = {12};
  u = Plan(Claimed(core::ChannelKind::kPush, 1), one_gone);
  EXPECT_EQ(u.gone_push, std::vector<std::int64_t>{12});
  EXPECT_EQ(u.telegram_chat_gone, std::nullopt);

  u = Plan(Claimed(core::ChannelKind::kPush, 1), Outcome::AddressGone(""));
  EXPECT_EQ(u.gone_push, (std::vector<std::int64_t>{11, 12})) << "none listed: every target is gone";
  EXPECT_EQ(u.reason, "address gone");

  u = Plan(Claimed(core::ChannelKind::kEmail, 1), Outcome::AddressGone("no such user"));
  EXPECT_EQ(u.telegram_chat_gone, std::nullopt);
  EXPECT_TRUE(u.gone_push.empty());
  EXPECT_EQ(u.user_address_gone, std::nullopt)
      << "only a registered channel's address (AddressStore::kUser) is deleted as gone: "
         "tests/chat_channels_blackbox_pgtest.cpp";
}

TEST_F(PlanOutcomeTest, PermanentFailsWithTheReason) {
  const auto u = Plan(Claimed(core::ChannelKind::kEmail, 1), Outcome::Permanent("550 no mailbox"));
  EXPECT_EQ(u.status, "failed");
  EXPECT_EQ(u.reason, "550 no mailbox");
}

}  // namespace
}  // namespace chopar::delivery
