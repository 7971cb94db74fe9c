#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"

namespace chopar::hub {

// A change of the state of inbox items (docs/api.md "Inbox states").
enum class InboxChange { kSeen, kRead, kUnread, kArchived, kUnarchived, kSnoozed, kUnsnoozed };

// "seen", "read", "unread", "archived", "unarchived", "snoozed",
// "unsnoozed": the change as SSE `state` events and the database name it.
std::string_view InboxChangeName(InboxChange change);

// The longest snooze: 90 days (129600 minutes).
inline constexpr int kMaxSnoozeMinutes = 90 * 24 * 60;
// At most this many ids (and categories) in one request.
inline constexpr std::size_t kMaxStateChangeIds = 1000;
inline constexpr std::size_t kMaxCategoryFilter = 20;

// Which of a user's notifications a state change applies to: `ids` or all,
// narrowed by the filters (each none: any).
struct StateChangeRequest {
  bool all = false;                 // every one of them
  std::vector<std::int64_t> ids{};  // otherwise these (ids of other users are ignored)
  std::vector<std::string> categories{};
  std::optional<std::string> tag{};
  std::optional<std::string> tenant{};
  // A snooze's end (InboxChange::kSnoozed only).
  std::optional<core::TimePoint> snoozed_until{};
};

// Parses the body of POST /v1/inbox/{seen,read,unread,archive,unarchive,
// snooze,unsnooze} and their server-key forms under
// /v1/users/{id}/notifications/: {"ids": [1, 2]} (at most 1000) or
// {"all": true}, with the optional filters "category" (a category or an
// array of at most 20), "tag" and "tenant". For kSnoozed exactly one of
// "until" (RFC 3339, after `now`, at most 90 days after it) or "minutes"
// (1..129600, counted from `now`). Throws core::RequestError kInvalidJson
// for a body that is not an object, kInvalidField naming the field
// otherwise. Pure; thread-safe.
StateChangeRequest ParseStateChangeRequest(const nlohmann::json& body, InboxChange change,
                                           core::TimePoint now);

}  // namespace chopar::hub
