#include "workflow/digest.hpp"

#include <algorithm>

namespace chopar::workflow {

WindowDecision DecideDigestWindow(const std::optional<OpenWindow>& open, core::TimePoint now,
                                  const DigestSettings& settings) {
  // A limit below one would leave every window full; one item per window
  // is the least a digest can hold.
  const int max_items = std::max(settings.max_items, 1);
  if (open && now < open->closes_at && open->item_count < max_items) {
    const bool fills = open->item_count + 1 >= max_items;
    // A clock behind the one that opened the window (stepped back) closes
    // it no earlier than it opened.
    return {WindowDecision::Kind::kJoin, fills ? std::max(now, open->opened_at) : open->closes_at};
  }
  return {WindowDecision::Kind::kOpen, max_items == 1 ? now : now + settings.window};
}

}  // namespace chopar::workflow
