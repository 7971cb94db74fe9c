#pragma once

#include <chrono>
#include <optional>

#include "core/clock.hpp"
#include "workflow/settings.hpp"

namespace chopar::workflow {

// The window open for one (user, type, key), as the database holds it.
struct OpenWindow {
  core::TimePoint opened_at;
  core::TimePoint closes_at;
  int item_count = 0;
};

// Where a notification's channel deliveries go. kJoin: into the open window,
// whose closing time becomes `closes_at` (earlier than before when this item
// fills it); kOpen: a new window opened now, closing at `closes_at`.
struct WindowDecision {
  enum class Kind { kJoin, kOpen };
  Kind kind = Kind::kOpen;
  core::TimePoint closes_at;
  friend bool operator==(const WindowDecision&, const WindowDecision&) = default;
};

// Decides for a notification arriving at `now`. A window is joined only
// while it is open (now strictly before closes_at) and not full; otherwise
// the notification opens the next one. A window that this item fills
// (item_count + 1 >= max_items) closes now, never before it opened (a `now`
// earlier than opened_at closes it at opened_at). The window is fixed by
// its first notification: joining never extends it. Pure.
WindowDecision DecideDigestWindow(const std::optional<OpenWindow>& open, core::TimePoint now,
                                  const DigestSettings& settings);

}  // namespace chopar::workflow
