#include "workflow/escalation.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace chopar::workflow {
namespace {

using core::ChannelKind;
using std::chrono::seconds;
using Verdict = EscalationDecision::Verdict;

const core::TimePoint kT0{std::chrono::hours(24 * 20000)};

TEST(EscalationTest, Verdicts) {
  const EscalateSettings settings{.after = seconds(900), .channels = {ChannelKind::kEmail}};
  const core::TimePoint due = kT0 + seconds(900);
  struct Case {
    const char* name;
    std::optional<seconds> read_after;  // after kT0
    seconds now_after;
    Verdict want;
  };
  const std::vector<Case> cases = {
      {"unread, not due", std::nullopt, seconds(899), Verdict::kWait},
      {"unread, due", std::nullopt, seconds(900), Verdict::kSend},
      {"unread, claimed late", std::nullopt, seconds(5000), Verdict::kSend},
      {"read before due", seconds(30), seconds(900), Verdict::kCancelRead},
      {"read before due, checked early", seconds(30), seconds(60), Verdict::kCancelRead},
      {"read after due but before the claim", seconds(1000), seconds(1200), Verdict::kCancelRead},
      {"read time ahead of now is not a read yet", seconds(1000), seconds(900), Verdict::kSend},
  };
  for (const Case& c : cases) {
    core::SimulatedClock clock(kT0);
    clock.Advance(c.now_after);
    std::optional<core::TimePoint> read_at;
    if (c.read_after) read_at = kT0 + *c.read_after;
    EXPECT_EQ(DecideEscalation(kT0, read_at, clock.Now(), settings),
              (EscalationDecision{c.want, due}))
        << c.name;
  }
}

// The pair on one moving clock: read → canceled, unread → sent.
TEST(EscalationTest, ReadAndUnreadOnAMovingClock) {
  const EscalateSettings settings{.after = seconds(60), .channels = {ChannelKind::kEmail}};
  core::SimulatedClock clock(kT0);
  std::optional<core::TimePoint> read_a;  // notification a is read; b never is
  clock.Advance(seconds(20));
  EXPECT_EQ(DecideEscalation(kT0, read_a, clock.Now(), settings).verdict, Verdict::kWait);
  read_a = clock.Now();
  clock.Advance(seconds(40));
  EXPECT_EQ(DecideEscalation(kT0, read_a, clock.Now(), settings).verdict, Verdict::kCancelRead);
  EXPECT_EQ(DecideEscalation(kT0, std::nullopt, clock.Now(), settings).verdict, Verdict::kSend);
}

TEST(EscalationTest, HoldsOnlyTheListedChannels) {
  const EscalateSettings settings{.after = seconds(60),
                                  .channels = {ChannelKind::kEmail, ChannelKind::kSms}};
  EXPECT_TRUE(settings.Holds(ChannelKind::kEmail));
  EXPECT_TRUE(settings.Holds(ChannelKind::kSms));
  EXPECT_FALSE(settings.Holds(ChannelKind::kPush));
  EXPECT_FALSE(settings.Holds(ChannelKind::kTelegram));
  EXPECT_EQ(settings.DueAt(kT0), kT0 + seconds(60));
}

}  // namespace
}  // namespace chopar::workflow
