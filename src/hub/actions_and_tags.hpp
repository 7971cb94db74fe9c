#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace chopar::hub {

// A button a notification offers (docs/api.md "Actions and tags"): an
// internal link to open, or an event the application hears of when the
// user presses it (POST /v1/inbox/notifications/{id}/actions/{n}). A value.
struct NotificationAction {
  std::string label;
  // Exactly one of the two.
  std::optional<std::string> url;
  std::optional<std::string> event;

  bool operator==(const NotificationAction&) const = default;
};

inline constexpr std::size_t kMaxActions = 2;
inline constexpr std::size_t kMaxActionLabel = 100;  // code points, after rendering

// The request's "actions": null, or an array of 1 to kMaxActions objects
// {"label", "url"} or {"label", "event"}. Throws core::RequestError
// kInvalidField naming the member ("actions", "actions[1].url", …): not
// an array, too many, unknown members, neither or both of url and event,
// or a member CheckAction refuses. Null: none. Pure.
std::vector<NotificationAction> ParseActions(const nlohmann::json& value);

// Throws core::RequestError kInvalidField "<field>.label" for a label that
// is not 1 to kMaxActionLabel code points, "<field>.url" for a url that is
// not an internal link (the rules of a notification's link), "<field>.event"
// for an event that does not match the notification type grammar. `field`
// is the action's place, "actions[0]". Pure.
void CheckAction(const NotificationAction& action, const std::string& field);

// `own`, then the tags of `more` it does not hold. Throws
// core::RequestError kInvalidField "tags" when that is more than
// core::kMaxTags. (A request's tags: core::ParseTags.)
std::vector<std::string> MergeTags(std::vector<std::string> own,
                                   const std::vector<std::string>& more);

// The actions as they are stored and shown: [{"label", "url"} |
// {"label", "event"}]. Pure.
nlohmann::json ActionsJson(const std::vector<NotificationAction>& actions);

// The actions of such an array, read by their types only (a stored
// request, a rendered template: checked when they were made). Members
// other than label, url and event are ignored. Throws std::invalid_argument
// for one of the wrong shape. Pure.
std::vector<NotificationAction> ActionsFromJson(const nlohmann::json& actions);

}  // namespace chopar::hub
