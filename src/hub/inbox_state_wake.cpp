#include "hub/inbox_state_wake.hpp"

#include <algorithm>

namespace chopar::hub {

std::vector<std::string> InboxStateWakes(std::int64_t user_id, const InboxStateChange& state) {
  nlohmann::json event = {{"change", InboxChangeName(state.change)}};
  auto payload = [&](nlohmann::json data) {
    data["at"] = state.at;
    if (state.snoozed_until) data["snoozed_until"] = *state.snoozed_until;
    return nlohmann::json{{"user_id", user_id}, {"state", std::move(data)}}.dump();
  };
  std::vector<std::string> payloads;
  if (!state.ids) {
    event["all"] = true;
    if (!state.filter.categories.empty()) event["category"] = state.filter.categories;
    if (state.filter.tag) event["tag"] = *state.filter.tag;
    if (state.filter.tenant) event["tenant"] = *state.filter.tenant;
    payloads.push_back(payload(event));
    return payloads;
  }
  const auto& ids = *state.ids;
  for (std::size_t first = 0; first < ids.size(); first += kMaxIdsPerWake) {
    const std::size_t last = std::min(ids.size(), first + kMaxIdsPerWake);
    nlohmann::json chunk = event;
    chunk["ids"] = std::vector<std::int64_t>(ids.begin() + static_cast<std::ptrdiff_t>(first),
                                             ids.begin() + static_cast<std::ptrdiff_t>(last));
    payloads.push_back(payload(std::move(chunk)));
  }
  return payloads;
}

}  // namespace chopar::hub
