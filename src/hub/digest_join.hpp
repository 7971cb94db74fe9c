#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "workflow/digest.hpp"

namespace chopar::hub {

// A notification of a digest type whose channel deliveries wait for its
// window (docs/workflows-design.md "Digest"): created in-app already.
struct DigestItem {
  std::int64_t notification_id = 0;
  std::int64_t user_id = 0;
  std::string type;
  std::string key;                          // rendered (workflow::DigestKey)
  std::vector<core::ChannelKind> channels;  // not empty
  workflow::DigestSettings settings;
};

// Puts `items` into their windows inside `tx` (the caller commits): takes
// the advisory locks of their (user, type, key) in sorted order, locks the
// open windows of those keys, decides per item in order with
// workflow::DecideDigestWindow at `now` (join, or open the next window),
// and writes windows and items in one statement, waking the closers. The
// closer takes a window's row lock, so an item is either in a window
// before it closes or in the next one. Throws db::DbError.
void JoinDigests(db::Transaction& tx, const std::vector<DigestItem>& items, core::TimePoint now);

}  // namespace chopar::hub
