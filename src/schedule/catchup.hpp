#pragma once

#include <date/tz.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/clock.hpp"
#include "schedule/cron.hpp"
#include "schedule/schedule_spec.hpp"

namespace chopar::schedule {

// How late an occurrence may fire under policy `none`: a scheduler that is
// running normally fires within this of the due instant; anything later was
// missed (downtime) and is skipped.
inline constexpr std::chrono::seconds kOnTimeGrace{60};

// Under policy `all`, at most this many occurrences fire in one decision (the
// newest ones); older eligible ones are skipped and counted. Bounds the
// notifications one schedule can add to a single firing transaction.
inline constexpr std::size_t kMaxFiresPerDecision = 1000;

struct CatchupRule {
  CatchupPolicy policy = CatchupPolicy::kLatest;
  std::chrono::seconds window = kDefaultCatchupWindow;
};

// What to do with a schedule's occurrences that are due at `now`.
struct CatchupDecision {
  std::vector<core::TimePoint> fire;              // due instants to fire now, oldest first
  std::int64_t skipped = 0;                       // due occurrences that will never fire
  std::optional<core::TimePoint> newest_skipped;  // the due instant of the newest of them
  std::optional<core::TimePoint> next_fire_at;    // the first occurrence after now; nullopt: none

  friend bool operator==(const CatchupDecision&, const CatchupDecision&) = default;
};

// The catch-up rule, on an explicit list. `due` holds the occurrences at or
// before `now`, strictly increasing; `next` is the first occurrence after now.
// An occurrence is eligible when now - due <= window (under `none`: when
// now - due <= min(window, kOnTimeGrace)). Then:
//   latest: the newest eligible occurrence fires;
//   all:    every eligible occurrence fires (the newest kMaxFiresPerDecision);
//   none:   every eligible occurrence fires (normally zero or one);
// every other due occurrence is skipped. Pure.
CatchupDecision DecideCatchup(std::span<const core::TimePoint> due,
                              std::optional<core::TimePoint> next, core::TimePoint now,
                              const CatchupRule& rule);

// The same for a schedule whose first unhandled occurrence is `first` (its
// stored next_fire_at, which counts as an occurrence even if the zone has
// changed since it was computed); the later ones are the pattern's firing
// instants in `zone` after it (NextFireTimes). If `first` is after `now`
// nothing is due and next_fire_at is `first`. Occurrences older than the
// window are counted without being kept; after kMaxCountedSkips of them the
// walk jumps to the window's start and the count stops there (a lower bound
// for a minutely schedule stopped for years). Pure; thread-safe; throws what
// NextFireTimes throws.
inline constexpr std::int64_t kMaxCountedSkips = 1'000'000;
CatchupDecision DecideCatchup(const CronPattern& pattern, const date::time_zone* zone,
                              core::TimePoint first, core::TimePoint now, const CatchupRule& rule);

}  // namespace chopar::schedule
