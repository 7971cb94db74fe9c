#include "workflow/digest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace chopar::workflow {
namespace {

using std::chrono::seconds;
using Kind = WindowDecision::Kind;

const core::TimePoint kT0{std::chrono::hours(24 * 20000)};

TEST(DigestWindowTest, Decisions) {
  const DigestSettings settings{.window = seconds(600), .key = DigestKey(), .max_items = 3};
  const OpenWindow open{.opened_at = kT0, .closes_at = kT0 + seconds(600), .item_count = 1};
  struct Case {
    const char* name;
    std::optional<OpenWindow> open;
    seconds at;  // after kT0
    WindowDecision want;
  };
  const std::vector<Case> cases = {
      {"no window opens one", std::nullopt, seconds(5), {Kind::kOpen, kT0 + seconds(605)}},
      {"inside the window joins, closing time kept",
       open,
       seconds(599),
       {Kind::kJoin, kT0 + seconds(600)}},
      {"at the closing instant opens the next",
       open,
       seconds(600),
       {Kind::kOpen, kT0 + seconds(1200)}},
      {"after closing opens the next", open, seconds(900), {Kind::kOpen, kT0 + seconds(1500)}},
      {"the item that fills the window closes it now",
       OpenWindow{kT0, kT0 + seconds(600), 2},
       seconds(10),
       {Kind::kJoin, kT0 + seconds(10)}},
      {"the item that fills it on a clock behind the opener's closes it as it opened",
       OpenWindow{kT0 + seconds(20), kT0 + seconds(620), 2},
       seconds(10),
       {Kind::kJoin, kT0 + seconds(20)}},
      {"a full window is not joined",
       OpenWindow{kT0, kT0 + seconds(600), 3},
       seconds(10),
       {Kind::kOpen, kT0 + seconds(610)}},
  };
  for (const Case& c : cases) {
    core::SimulatedClock clock(kT0);
    clock.Advance(c.at);
    EXPECT_EQ(DecideDigestWindow(c.open, clock.Now(), settings), c.want) << c.name;
  }
}

TEST(DigestWindowTest, OneItemWindowsCloseAtOnce) {
  for (int max_items : {1, 0, -4}) {
    const DigestSettings settings{
        .window = seconds(60), .key = DigestKey(), .max_items = max_items};
    EXPECT_EQ(DecideDigestWindow(std::nullopt, kT0, settings), (WindowDecision{Kind::kOpen, kT0}))
        << "max_items " << max_items;
  }
}

// The scenario on a moving clock: 4 notifications in one window, a
// fifth after it closed; the window is fixed by its first notification.
TEST(DigestWindowTest, FourThenOneOnAMovingClock) {
  const DigestSettings settings{.window = seconds(600), .key = DigestKey(), .max_items = 50};
  core::SimulatedClock clock(kT0);
  std::optional<OpenWindow> open;
  std::vector<int> windows_of_items;
  int windows = 0;
  for (seconds gap : {seconds(0), seconds(100), seconds(200), seconds(299), seconds(400)}) {
    clock.Advance(gap);
    const WindowDecision d = DecideDigestWindow(open, clock.Now(), settings);
    if (d.kind == Kind::kOpen) {
      ++windows;
      open = OpenWindow{clock.Now(), d.closes_at, 0};
    }
    open->closes_at = d.closes_at;
    ++open->item_count;
    windows_of_items.push_back(windows);
  }
  EXPECT_EQ(windows_of_items, (std::vector<int>{1, 1, 1, 1, 2}));
  EXPECT_EQ(open->opened_at, kT0 + seconds(999));
  EXPECT_EQ(open->closes_at, kT0 + seconds(1599));
}

TEST(DigestKeyTest, RendersFromData) {
  const nlohmann::json data = {{"project", {{"id", 7}, {"name", "A&B"}}}, {"post", "p-1"}};
  struct Case {
    const char* source;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"", ""},
      {"{{project.id}}", "7"},
      {"{{project.name}}", "A&B"},  // a key, not HTML: nothing escaped
      {"{{project.id}}:{{post}}", "7:p-1"},
      {"{{missing}}", ""},
      {"fixed", "fixed"},
  };
  for (const Case& c : cases) EXPECT_EQ(DigestKey(c.source).Render(data), c.want) << c.source;
}

TEST(DigestKeyTest, LongKeysAreHashedAndStayDistinct) {
  const std::string prefix(kMaxDigestKeyBytes, 'k');
  const DigestKey key("{{k}}");
  const std::string exact = key.Render({{"k", prefix}});
  const std::string a = key.Render({{"k", prefix + "a"}});
  const std::string b = key.Render({{"k", prefix + "b"}});
  EXPECT_EQ(exact, prefix) << "a key of exactly the limit is kept";
  EXPECT_EQ(a.rfind("sha256:", 0), 0u);
  EXPECT_EQ(a.size(), 7u + 64u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, key.Render({{"k", prefix + "a"}})) << "deterministic";
}

TEST(DigestKeyTest, BadSyntaxThrows) {
  EXPECT_THROW(DigestKey("{{#open}}"), mustache::SyntaxError);
}

}  // namespace
}  // namespace chopar::workflow
