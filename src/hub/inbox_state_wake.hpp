#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hub/state_change_request.hpp"

namespace chopar::hub {

// A state change as the user's streams send it (docs/api.md "Live
// updates", event `state`), before its ids are split up.
struct InboxStateChange {
  InboxChange change = InboxChange::kRead;
  std::string at;  // when, as the API writes times
  // The notifications that changed; none: too many to list, so the event
  // says {"all": true} with the request's filters (`filter`) instead.
  std::optional<std::vector<std::int64_t>> ids{};
  std::optional<std::string> snoozed_until{};  // kSnoozed: until when
  StateChangeRequest filter{};                 // categories, tag, tenant
};

// The payloads of the NOTIFY db::kInboxChannel that carry `state` to the
// streams of `user_id` in every process: each a JSON object
// {"user_id": …, "state": {the event's data}}, at most kMaxIdsPerWake ids in
// each (so each stays far below PostgreSQL's 8000-byte payload limit), in
// order. A payload starting with "{" is a state change; the older form
// (user ids) only wakes. Pure.
std::vector<std::string> InboxStateWakes(std::int64_t user_id, const InboxStateChange& state);

inline constexpr std::size_t kMaxIdsPerWake = 300;

}  // namespace chopar::hub
