#include "outbox/chopar_events.hpp"

#include <algorithm>

#include "outbox/queries.hpp"
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

std::vector<std::string_view> SelectedChoparEvents(const std::vector<std::string>& patterns) {
  std::vector<std::string_view> selected;
  for (std::string_view event : kChoparEvents) {
    if (std::any_of(patterns.begin(), patterns.end(),
                    [&](const std::string& pattern) { return GlobMatches(pattern, event); })) {
      selected.push_back(event);
    }
  }
  return selected;
}

db::ServerSettings EventSessionSettings(const std::vector<std::string>& patterns) {
  const std::vector<std::string_view> selected = SelectedChoparEvents(patterns);
  if (selected.empty()) return {};
  std::string value = ",";
  for (std::string_view event : selected) (value += event) += ',';
  return {{kEventsSetting, value}};
}

void EnableChoparEvents(db::Connection& conn) { conn.Exec(queries::kEnableOwnEvents); }

}  // namespace chopar::outbox
