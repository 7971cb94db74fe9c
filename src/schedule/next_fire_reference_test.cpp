// NextFireTimes against a deliberately naive reference: walk every UTC minute,
// read the local wall clock, and decide from the rules in docs/api.md "Cron patterns" alone whether that
// minute fires. The walk is slow, so it covers a few days around every
// offset change of 2024-2027 plus a few ordinary days, in every zone below.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/time_format.hpp"
#include "schedule/cron.hpp"
#include "schedule/next_fire.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

using std::chrono::minutes;
using SysMinutes = date::sys_time<minutes>;
using LocalMinute = date::local_time<minutes>;

const std::vector<std::string> kZones{"Europe/Berlin",    "America/New_York", "Australia/Lord_Howe",
                                      "Pacific/Chatham",  "Asia/Kathmandu",   "America/St_Johns",
                                      "America/Santiago", "America/Havana",   "Africa/Cairo",
                                      "Europe/Dublin",    "Asia/Tashkent",    "UTC"};

// The local wall clock, in the terms a cron pattern talks about.
struct Wall {
  unsigned month;    // 1-12
  unsigned day;      // 1-31
  unsigned weekday;  // 0 = Sunday
  int hour;
  int minute;
};

Wall BreakDown(LocalMinute local) {
  const auto day = std::chrono::floor<date::days>(local);
  const date::year_month_day ymd(day);
  const auto minute_of_day = static_cast<int>((local - day).count());
  return {static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
          date::weekday(day).c_encoding(), minute_of_day / 60, minute_of_day % 60};
}

using Matcher = std::function<bool(const Wall&)>;

// The wall time at `t` under `offset` (whole minutes in every zone used here).
LocalMinute WallAt(SysMinutes t, std::chrono::seconds offset) {
  return LocalMinute(std::chrono::duration_cast<minutes>((t + offset).time_since_epoch()));
}

// One minute of the walk and the wall time the zone's clock shows then.
struct Tick {
  SysMinutes utc;
  LocalMinute local;
};

// Ticks for every UTC minute of [from, to]. The first kWarmUp ticks only give
// the reference the clock's history; firings are compared after them.
constexpr int kWarmUp = 24 * 60;

struct Window {
  std::string zone;
  std::vector<Tick> ticks;
};

Window Walk(const std::string& zone_name, SysMinutes from, SysMinutes to) {
  const date::time_zone* zone = FindTimeZone(zone_name);
  Window window{zone_name, {}};
  for (SysMinutes t = from - minutes(kWarmUp); t <= to; t += minutes(1)) {
    const date::sys_info info = zone->get_info(t);
    if (info.offset.count() % 60 != 0) throw std::logic_error("offset not in whole minutes");
    window.ticks.push_back({t, WallAt(t, info.offset)});
  }
  return window;
}

// The reference. Wildcard: a minute fires iff the wall clock then shows a
// matching time. Fixed-time: every matching wall time fires once, at the
// first minute when the clock shows it or has jumped past it; that is, a
// minute fires iff some matching wall time lies above everything the clock
// showed before and at or below what it shows now. A repeated hour shows
// nothing new (no firing), a gap makes the next minute cover all the skipped
// wall times (one firing), and an ordinary minute covers just itself.
std::vector<SysMinutes> ReferenceFires(const Window& window, bool wildcard,
                                       const Matcher& matches) {
  std::vector<SysMinutes> fires;
  LocalMinute highest_shown = window.ticks.front().local;
  for (std::size_t i = 1; i < window.ticks.size(); ++i) {
    const Tick& tick = window.ticks[i];
    bool fire = false;
    if (wildcard) {
      fire = matches(BreakDown(tick.local));
    } else {
      for (LocalMinute w = highest_shown + minutes(1); w <= tick.local; w += minutes(1)) {
        fire = fire || matches(BreakDown(w));
      }
    }
    highest_shown = std::max(highest_shown, tick.local);
    if (fire && i > static_cast<std::size_t>(kWarmUp)) fires.push_back(tick.utc);
  }
  return fires;
}

std::string Show(const std::vector<core::TimePoint>& times) {
  std::string out;
  for (const auto& t : times) out += core::FormatRfc3339(t) + " ";
  return out;
}

void ExpectAgreesWithReference(const std::string& cron, bool wildcard, const Matcher& matches,
                               const Window& window) {
  std::vector<core::TimePoint> expected;
  for (SysMinutes t : ReferenceFires(window, wildcard, matches)) expected.push_back(t);
  const core::TimePoint after = window.ticks[kWarmUp].utc;
  const core::TimePoint end = window.ticks.back().utc;
  std::vector<core::TimePoint> actual = NextFireTimes(ParseCron(cron), FindTimeZone(window.zone),
                                                      after, static_cast<int>(expected.size()) + 1);
  // One more than the window holds: it must lie beyond the window.
  if (actual.size() > expected.size()) {
    EXPECT_GT(actual.back(), end) << cron << " in " << window.zone;
    actual.pop_back();
  }
  EXPECT_EQ(Show(actual), Show(expected))
      << "\"" << cron << "\" in " << window.zone << " after " << core::FormatRfc3339(after);
}

// Windows of ±2 days around every offset change in 2024-2027, and a few
// ordinary stretches (a leap day, month and year ends).
const std::vector<Window>& Windows() {
  static const std::vector<Window> windows = [] {
    std::vector<Window> out;
    const SysMinutes begin{date::sys_days(date::year(2024) / 1 / 1)};
    const SysMinutes end{date::sys_days(date::year(2028) / 1 / 1)};
    for (const std::string& name : kZones) {
      const date::time_zone* zone = FindTimeZone(name);
      for (date::sys_info info = zone->get_info(begin); info.end < end;
           info = zone->get_info(info.end)) {
        const auto change = std::chrono::floor<minutes>(info.end);
        out.push_back(Walk(name, change - date::days(2), change + date::days(2)));
      }
      for (const auto day :
           {date::year(2024) / 2 / 28, date::year(2025) / 6 / 30, date::year(2026) / 12 / 31}) {
        const SysMinutes start{date::sys_days(day)};
        out.push_back(Walk(name, start - date::days(1), start + date::days(2)));
      }
    }
    return out;
  }();
  return windows;
}

struct Case {
  std::string cron;
  bool wildcard;
  Matcher matches;
};

// Written from each pattern's meaning, not from the parser.
const std::vector<Case>& Cases() {
  static const std::vector<Case> cases{
      {"30 2 * * *", false, [](const Wall& w) { return w.hour == 2 && w.minute == 30; }},
      {"0 0 * * *", false, [](const Wall& w) { return w.hour == 0 && w.minute == 0; }},
      {"*/15 * * * *", true, [](const Wall& w) { return w.minute % 15 == 0; }},
      {"0 * * * *", true, [](const Wall& w) { return w.minute == 0; }},
      {"5 18 * * *", false, [](const Wall& w) { return w.hour == 18 && w.minute == 5; }},
      {"30 1 * * 0", false,
       [](const Wall& w) { return w.weekday == 0 && w.hour == 1 && w.minute == 30; }},
      {"15 2,3 * * *", false,
       [](const Wall& w) { return (w.hour == 2 || w.hour == 3) && w.minute == 15; }},
      {"0 0 1 * *", false,
       [](const Wall& w) { return w.day == 1 && w.hour == 0 && w.minute == 0; }},
      {"0,30 2 * * *", false,
       [](const Wall& w) { return w.hour == 2 && (w.minute == 0 || w.minute == 30); }},
      {"0-59/10 2 * * *", false, [](const Wall& w) { return w.hour == 2 && w.minute % 10 == 0; }},
      {"* * * * *", true, [](const Wall&) { return true; }},
      {"*/7 1-3 * * *", true,
       [](const Wall& w) { return w.hour >= 1 && w.hour <= 3 && w.minute % 7 == 0; }},
      {"0 */2 * * *", true, [](const Wall& w) { return w.hour % 2 == 0 && w.minute == 0; }},
      {"45 23 * * *", false, [](const Wall& w) { return w.hour == 23 && w.minute == 45; }},
      {"30 0 * * *", false, [](const Wall& w) { return w.hour == 0 && w.minute == 30; }},
      {"59 1 * * *", false, [](const Wall& w) { return w.hour == 1 && w.minute == 59; }},
      {"0 3 * * *", false, [](const Wall& w) { return w.hour == 3 && w.minute == 0; }},
      {"0 0 1 * MON", false,
       [](const Wall& w) {
         return (w.day == 1 || w.weekday == 1) && w.hour == 0 && w.minute == 0;
       }},
      {"@hourly", true, [](const Wall& w) { return w.minute == 0; }},
      {"@weekly", false,
       [](const Wall& w) { return w.weekday == 0 && w.hour == 0 && w.minute == 0; }},
  };
  return cases;
}

TEST(NextFireReference, AgreesAroundEveryDstChangeInEveryZone) {
  for (const Window& window : Windows()) {
    for (const Case& c : Cases()) ExpectAgreesWithReference(c.cron, c.wildcard, c.matches, window);
  }
}

TEST(NextFireReference, CoversTheInterestingTransitions) {
  // Guards the test itself: the zones must really have offset changes here.
  std::map<std::string, int> changes;
  for (const Window& window : Windows()) {
    for (std::size_t i = 1; i < window.ticks.size(); ++i) {
      if (window.ticks[i].local - window.ticks[i - 1].local != minutes(1)) ++changes[window.zone];
    }
  }
  EXPECT_EQ(changes["Europe/Berlin"], 8);
  EXPECT_EQ(changes["Australia/Lord_Howe"], 8);
  EXPECT_EQ(changes["America/Santiago"], 8);
  EXPECT_EQ(changes["Asia/Tashkent"], 0);
  EXPECT_EQ(changes["UTC"], 0);
}

// Random patterns, biased towards the hours where clocks change.
class PatternGenerator {
 public:
  explicit PatternGenerator(unsigned seed) : rng_(seed) {}

  std::string Field(int min, int max, int star_percent, const std::vector<int>& favourites) {
    const int kind = Uniform(0, 99);
    if (kind < star_percent) return "*";
    if (kind < star_percent + 10) return "*/" + std::to_string(Uniform(2, std::min(20, max - min)));
    switch (Uniform(0, 3)) {
      case 0:
        return std::to_string(Pick(min, max, favourites));
      case 1: {
        int a = Pick(min, max, favourites), b = Pick(min, max, favourites);
        if (a > b) std::swap(a, b);
        return std::to_string(a) + "-" + std::to_string(b);
      }
      case 2: {
        const int a = Pick(min, max, favourites);
        return std::to_string(a) + "-" + std::to_string(Uniform(a, max)) + "/" +
               std::to_string(Uniform(1, 5));
      }
      default:
        return std::to_string(Pick(min, max, favourites)) + "," +
               std::to_string(Pick(min, max, favourites));
    }
  }

  int Uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

 private:
  int Pick(int min, int max, const std::vector<int>& favourites) {
    if (!favourites.empty() && Uniform(0, 1) == 0) {
      return favourites[static_cast<std::size_t>(
          Uniform(0, static_cast<int>(favourites.size()) - 1))];
    }
    return Uniform(min, max);
  }

  std::mt19937 rng_;
};

TEST(NextFireReference, AgreesForRandomPatterns) {
  PatternGenerator gen(20260815);
  const std::vector<Window>& windows = Windows();
  for (int n = 0; n < 400; ++n) {
    const std::string minute = gen.Field(0, 59, 25, {0, 15, 30, 45, 59});
    const std::string hour = gen.Field(0, 23, 25, {0, 1, 2, 3, 23});
    const std::string dom = gen.Field(1, 31, 70, {1, 28, 29, 31});
    const std::string month = gen.Field(1, 12, 80, {});
    const std::string dow = gen.Field(0, 7, 60, {0, 5, 7});
    const std::string cron = minute + " " + hour + " " + dom + " " + month + " " + dow;
    // The parser supplies the sets; the reference applies its own reading of
    // the day rule and of which patterns are wildcards.
    const CronPattern p = ParseCron(cron);
    const bool wildcard = minute[0] == '*' || hour[0] == '*';
    const bool both_days_restricted = dom[0] != '*' && dow[0] != '*';
    const Matcher matches = [p, both_days_restricted](const Wall& w) {
      const bool dom_ok = p.days_of_month.test(w.day);
      const bool dow_ok = p.days_of_week.test(w.weekday);
      const bool day_ok = both_days_restricted ? (dom_ok || dow_ok) : (dom_ok && dow_ok);
      return day_ok && p.months.test(w.month) && p.hours.test(static_cast<std::size_t>(w.hour)) &&
             p.minutes.test(static_cast<std::size_t>(w.minute));
    };
    const Window& window =
        windows[static_cast<std::size_t>(gen.Uniform(0, static_cast<int>(windows.size()) - 1))];
    ExpectAgreesWithReference(cron, wildcard, matches, window);
  }
}

// Long runs: every firing is a matching wall time (the first pass of it, for a
// fixed-time pattern) or the end of a gap that swallowed one; strictly increasing.
TEST(NextFireProperty, EveryFiringIsJustified) {
  const core::TimePoint after{date::sys_days(date::year(2024) / 1 / 1)};
  for (const std::string& name : kZones) {
    const date::time_zone* zone = FindTimeZone(name);
    for (const Case& c : Cases()) {
      const auto fires = NextFireTimes(ParseCron(c.cron), zone, after, 400);
      ASSERT_EQ(fires.size(), 400u) << c.cron << " in " << name;
      for (std::size_t i = 0; i < fires.size(); ++i) {
        const auto t = std::chrono::floor<minutes>(fires[i]);
        ASSERT_EQ(t, fires[i]) << "not a whole minute";
        if (i > 0) {
          ASSERT_GT(fires[i], fires[i - 1]) << c.cron << " in " << name;
        }
        const date::sys_info info = zone->get_info(t);
        const LocalMinute local = WallAt(t, info.offset);
        const std::string where = c.cron + " in " + name + " at " + core::FormatRfc3339(t);
        if (c.wildcard) {
          EXPECT_TRUE(c.matches(BreakDown(local))) << where;
          continue;
        }
        if (c.matches(BreakDown(local))) {
          const date::local_info li = zone->get_info(local);
          if (li.result == date::local_info::ambiguous) {
            const date::sys_seconds first_pass((local - li.first.offset).time_since_epoch());
            EXPECT_EQ(t, first_pass) << "not the first pass: " << where;
          }
          continue;
        }
        // A gap firing: t starts an offset, and the skipped wall times hold a match.
        ASSERT_EQ(info.begin, t) << "unjustified firing: " << where;
        const date::sys_info before = zone->get_info(t - std::chrono::seconds(1));
        ASSERT_LT(before.offset, info.offset) << where;
        bool swallowed = false;
        for (LocalMinute w = WallAt(t, before.offset); w < local; w += minutes(1)) {
          swallowed = swallowed || c.matches(BreakDown(w));
        }
        EXPECT_TRUE(swallowed) << where;
      }
    }
  }
}

}  // namespace
}  // namespace chopar::schedule
