#include "hub/actions_and_tags.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/request_error.hpp"
#include "core/tags.hpp"
#include "core/type_name.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {
namespace {

std::size_t CodePoints(std::string_view text) {
  return static_cast<std::size_t>(
      std::ranges::count_if(text, [](unsigned char c) { return (c & 0xC0) != 0x80; }));
}

std::optional<std::string> Member(const nlohmann::json& action, const char* name,
                                  const std::string& field) {
  const auto it = action.find(name);
  if (it == action.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) {
    throw core::InvalidField(field + "." + name, field + "." + name + " must be a string");
  }
  std::string value = it->get<std::string>();
  if (value.find('\0') != std::string::npos) {
    throw core::InvalidField(field + "." + name,
                             field + "." + name + " must not contain the NUL character");
  }
  return value;
}

}  // namespace

void CheckAction(const NotificationAction& action, const std::string& field) {
  const std::size_t length = CodePoints(action.label);
  if (length < 1 || length > kMaxActionLabel) {
    throw core::InvalidField(field + ".label", field + ".label must be 1 to " +
                                                   std::to_string(kMaxActionLabel) + " characters");
  }
  if (action.url.has_value() == action.event.has_value()) {
    throw core::InvalidField(field, field + " must have either url or event");
  }
  if (action.url && (action.url->size() > 2000 || !IsInternalLink(*action.url))) {
    throw core::InvalidField(field + ".url",
                             field +
                                 ".url must be an internal path such as /tasks/1 (no scheme, not "
                                 "//host), at most 2000 characters");
  }
  if (action.event && !core::IsTypeName(*action.event)) {
    throw core::InvalidField(field + ".event",
                             field +
                                 ".event must match ^[a-z]+(\\.[a-z_]+)*$ (at most 100 "
                                 "characters), e.g. invite.accept");
  }
}

std::vector<NotificationAction> ParseActions(const nlohmann::json& value) {
  if (value.is_null()) return {};
  if (!value.is_array() || value.empty() || value.size() > kMaxActions) {
    throw core::InvalidField("actions", "actions must be an array of 1 to " +
                                            std::to_string(kMaxActions) +
                                            " objects {\"label\", \"url\"} or {\"label\", "
                                            "\"event\"}");
  }
  std::vector<NotificationAction> actions;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string field = "actions[" + std::to_string(i) + "]";
    const nlohmann::json& item = value[i];
    if (!item.is_object()) {
      throw core::InvalidField(field, field +
                                          " must be an object {\"label\", \"url\" or "
                                          "\"event\"}");
    }
    for (const auto& [key, member] : item.items()) {
      if (key != "label" && key != "url" && key != "event") {
        throw core::InvalidField(field + "." + key, "unknown field " + field + "." + key);
      }
    }
    NotificationAction action;
    action.label = Member(item, "label", field).value_or("");
    action.url = Member(item, "url", field);
    action.event = Member(item, "event", field);
    CheckAction(action, field);
    actions.push_back(std::move(action));
  }
  return actions;
}

std::vector<std::string> MergeTags(std::vector<std::string> own,
                                   const std::vector<std::string>& more) {
  for (const std::string& tag : more) {
    if (std::ranges::find(own, tag) == own.end()) own.push_back(tag);
  }
  if (own.size() > core::kMaxTags) {
    throw core::InvalidField(
        "tags", "tags with the template's are more than " + std::to_string(core::kMaxTags));
  }
  return own;
}

nlohmann::json ActionsJson(const std::vector<NotificationAction>& actions) {
  nlohmann::json out = nlohmann::json::array();
  for (const NotificationAction& action : actions) {
    nlohmann::json item = {{"label", action.label}};
    if (action.url) item["url"] = *action.url;
    if (action.event) item["event"] = *action.event;
    out.push_back(std::move(item));
  }
  return out;
}

std::vector<NotificationAction> ActionsFromJson(const nlohmann::json& actions) {
  if (!actions.is_array()) throw std::invalid_argument("actions: not an array");
  std::vector<NotificationAction> out;
  for (const nlohmann::json& item : actions) {
    if (!item.is_object() || !item.contains("label") || !item["label"].is_string())
      throw std::invalid_argument("actions: an action without a label");
    NotificationAction action{item["label"].get<std::string>(), std::nullopt, std::nullopt};
    for (auto [name, member] : {std::pair{"url", &action.url}, std::pair{"event", &action.event}}) {
      const auto it = item.find(name);
      if (it == item.end() || it->is_null()) continue;
      if (!it->is_string()) throw std::invalid_argument(std::string("actions: ") + name);
      *member = it->get<std::string>();
    }
    out.push_back(std::move(action));
  }
  return out;
}

}  // namespace chopar::hub
