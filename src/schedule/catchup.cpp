#include "schedule/catchup.hpp"

#include <algorithm>

#include "schedule/next_fire.hpp"

namespace chopar::schedule {
namespace {

std::chrono::seconds EffectiveWindow(const CatchupRule& rule) {
  return rule.policy == CatchupPolicy::kNone ? std::min(rule.window, kOnTimeGrace) : rule.window;
}

}  // namespace

CatchupDecision DecideCatchup(std::span<const core::TimePoint> due,
                              std::optional<core::TimePoint> next, core::TimePoint now,
                              const CatchupRule& rule) {
  CatchupDecision decision;
  decision.next_fire_at = next;
  const core::TimePoint eligible_from = now - EffectiveWindow(rule);
  const auto first_eligible = std::lower_bound(due.begin(), due.end(), eligible_from);
  const auto eligible = static_cast<std::size_t>(due.end() - first_eligible);
  const std::size_t keep = rule.policy == CatchupPolicy::kLatest
                               ? std::min<std::size_t>(eligible, 1)
                               : std::min(eligible, kMaxFiresPerDecision);
  const auto fire_begin = due.end() - static_cast<std::ptrdiff_t>(keep);
  decision.fire.assign(fire_begin, due.end());
  decision.skipped = fire_begin - due.begin();
  if (fire_begin != due.begin()) decision.newest_skipped = *(fire_begin - 1);
  return decision;
}

CatchupDecision DecideCatchup(const CronPattern& pattern, const date::time_zone* zone,
                              core::TimePoint first, core::TimePoint now, const CatchupRule& rule) {
  if (first > now) {
    CatchupDecision decision;
    decision.next_fire_at = first;
    return decision;
  }
  const core::TimePoint window_start = now - EffectiveWindow(rule);
  // Occurrences older than the window are only counted; the ones inside it
  // are kept (at most 2 × kMaxFiresPerDecision, the oldest counted as skipped).
  std::int64_t counted = 0;
  std::optional<core::TimePoint> newest_counted;
  std::vector<core::TimePoint> recent;
  std::optional<core::TimePoint> next;

  const auto consider = [&](core::TimePoint t) {
    if (t > now) {
      next = t;
      return;
    }
    if (t < window_start) {
      ++counted;
      newest_counted = t;
      return;
    }
    recent.push_back(t);
    if (recent.size() >= 2 * kMaxFiresPerDecision) {
      const auto drop = static_cast<std::ptrdiff_t>(recent.size() - kMaxFiresPerDecision);
      counted += drop;
      newest_counted = recent[static_cast<std::size_t>(drop - 1)];
      recent.erase(recent.begin(), recent.begin() + drop);
    }
  };

  consider(first);
  core::TimePoint cursor = first;
  bool jumped = false;
  int chunk = 2;  // most schedules have one due occurrence: ask for little first
  while (!next) {
    if (!jumped && counted >= kMaxCountedSkips && cursor < window_start) {
      cursor = window_start - core::TimePoint::duration(1);
      jumped = true;
    }
    const std::vector<core::TimePoint> found = NextFireTimes(pattern, zone, cursor, chunk);
    if (found.empty()) break;
    for (core::TimePoint t : found) {
      consider(t);
      if (next) break;
    }
    cursor = found.back();
    chunk = std::min(chunk * 2, 1024);
  }

  CatchupDecision decision = DecideCatchup(recent, next, now, rule);
  decision.skipped += counted;
  if (!decision.newest_skipped) decision.newest_skipped = newest_counted;
  return decision;
}

}  // namespace chopar::schedule
