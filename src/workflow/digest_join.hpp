#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "workflow/digest.hpp"

namespace chopar::workflow {

// A notification of a digest type whose channel deliveries wait for its
// window (docs/workflows-design.md "Digest"): created in-app already.
struct DigestItem {
  std::int64_t notification_id = 0;
  std::int64_t user_id = 0;
  std::string type;
  std::string key;                          // rendered (DigestKey)
  std::vector<core::ChannelKind> channels;  // not empty
  DigestSettings settings;
};

// Puts `items` into their windows inside `tx` (the caller commits): takes
// the advisory locks of their (user, type, key) in sorted order, locks the
// open windows of those keys, decides per item in order with
// DecideDigestWindow, and writes windows and items in one
// statement, waking the closers. The closer takes a window's row lock, so an
// item is either in a window before it closes or in the next one.
//
// The time decided at is `simulated_now` in tests; otherwise (nullopt) the
// database's clock read while the locks are held, the clock the closers
// compare closes_at with: notifiers of one key decide in lock order at
// times in that order, so a window is never filled "before" it was opened
// by a notifier that read its own clock earlier but locked later.
//
// `for_workflow_runs`: the items are workflow runs at a digest step
// (docs/api.md "Workflows with steps"): they join only windows opened by
// runs, and the closer wakes the runs of such a window instead of sending.
// Windows of notify's own digests and of runs never mix.
//
// Throws db::DbError. A CHECK of the digests tables refusing what this
// wrote is a defect here, never the caller's input: it is thrown as
// std::logic_error (an internal error, not the API's 400).
void JoinDigests(db::Transaction& tx, const std::vector<DigestItem>& items,
                 std::optional<core::TimePoint> simulated_now, bool for_workflow_runs = false);

}  // namespace chopar::workflow
