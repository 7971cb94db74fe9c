#include "outbox/chopar_events.hpp"

#include <algorithm>

#include "outbox/type_patterns.hpp"

namespace chopar::outbox {

bool MatchesAnyChoparEvent(std::string_view pattern) {
  return std::any_of(kChoparEvents.begin(), kChoparEvents.end(),
                     [&](std::string_view event) { return GlobMatches(pattern, event); });
}

std::string ChoparEventNames() {
  std::string names;
  for (std::string_view event : kChoparEvents) {
    if (!names.empty()) names += ", ";
    names += event;
  }
  return names;
}

}  // namespace chopar::outbox
