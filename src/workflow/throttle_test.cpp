#include "workflow/throttle.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace chopar::workflow {
namespace {

using std::chrono::seconds;

const core::TimePoint kT0{std::chrono::hours(24 * 20000)};

TEST(ThrottleTest, Verdicts) {
  struct Case {
    int already, candidates, limit;
    core::RateDecision want;
  };
  const std::vector<Case> cases = {
      {0, 5, 2, {2, 3}},  // the "2 of 5" in one claim
      {1, 5, 2, {1, 4}}, {2, 1, 2, {0, 1}},
      {9, 1, 2, {0, 1}},  // already over (the limit was lowered)
      {0, 0, 2, {0, 0}}, {0, 3, 0, {0, 3}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DecideThrottle(c.already, c.candidates, {.limit = c.limit, .window = seconds(60)}),
              c.want)
        << c.already << " already, " << c.candidates << " candidates, limit " << c.limit;
  }
}

// Five notifications a minute apart, limit 2 per 3 minutes, one at a time as
// workers claim them: the window slides with the clock.
TEST(ThrottleTest, SlidingWindowOnAMovingClock) {
  const ThrottleSettings settings{.limit = 2, .window = seconds(180)};
  core::SimulatedClock clock(kT0);
  std::vector<core::TimePoint> claimed;
  std::vector<bool> sent;
  for (int i = 0; i < 5; ++i) {
    const int already = CountInThrottleWindow(claimed, clock.Now(), settings);
    const bool go = DecideThrottle(already, 1, settings).pass == 1;
    if (go) claimed.push_back(clock.Now());
    sent.push_back(go);
    clock.Advance(seconds(60));
  }
  // t=0 and t=60 go; t=120 would be the third in the window; at t=180 t=0
  // has left (the window is strictly after now − window); at t=240 t=60 has
  // left too, so only t=180 counts.
  EXPECT_EQ(sent, (std::vector<bool>{true, true, false, true, true}));
}

TEST(ThrottleTest, WindowEdges) {
  const ThrottleSettings settings{.limit = 1, .window = seconds(100)};
  const std::vector<core::TimePoint> history = {kT0, kT0 + seconds(50), kT0 + seconds(101)};
  EXPECT_EQ(CountInThrottleWindow(history, kT0 + seconds(100), settings), 1)
      << "kT0 is on the edge: out";
  EXPECT_EQ(CountInThrottleWindow(history, kT0 + seconds(99), settings), 2);
  EXPECT_EQ(CountInThrottleWindow(history, kT0 + seconds(200), settings), 1)
      << "the future one is in now";
}

}  // namespace
}  // namespace chopar::workflow
