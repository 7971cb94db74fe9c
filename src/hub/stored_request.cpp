#include "hub/stored_request.hpp"

#include <algorithm>
#include <optional>

#include "core/time_format.hpp"

namespace chopar::hub {
namespace {

// The member `name` of `form` when present and not null.
const nlohmann::json* Member(const nlohmann::json& form, const char* name) {
  const auto it = form.find(name);
  return it == form.end() || it->is_null() ? nullptr : &*it;
}

[[noreturn]] void WrongType(const char* name, const char* expected) {
  throw StoredRequestError(std::string("stored request: ") + name + " is not " + expected);
}

std::optional<std::string> Text(const nlohmann::json& form, const char* name) {
  const nlohmann::json* value = Member(form, name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) WrongType(name, "a string");
  return value->get<std::string>();
}

std::optional<std::int64_t> Integer(const nlohmann::json& form, const char* name) {
  const nlohmann::json* value = Member(form, name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number_integer()) WrongType(name, "an integer");
  return value->get<std::int64_t>();
}

NotificationRequest DecodeVersion1(const nlohmann::json& form) {
  if (!form.is_object()) throw StoredRequestError("stored request: not a JSON object");
  NotificationRequest r;
  r.user_id = Integer(form, "user_id").value_or(0);
  const auto type = Text(form, "type");
  if (!type) throw StoredRequestError("stored request: no type");
  r.type = *type;
  r.title = Text(form, "title").value_or("");
  r.body = Text(form, "body").value_or("");
  r.category = Text(form, "category");
  r.link = Text(form, "link");
  if (const nlohmann::json* data = Member(form, "data")) {
    if (!data->is_object()) WrongType("data", "an object");
    r.data = *data;
  }
  if (const nlohmann::json* channels = Member(form, "channels")) {
    if (!channels->is_array()) WrongType("channels", "an array");
    r.channels.clear();
    for (const nlohmann::json& name : *channels) {
      const auto kind = name.is_string() ? core::ParseChannel(name.get<std::string>())
                                         : std::optional<core::ChannelKind>();
      if (!kind) throw StoredRequestError("stored request: unknown channel " + name.dump());
      if (std::ranges::find(r.channels, *kind) == r.channels.end()) r.channels.push_back(*kind);
    }
  }
  if (const nlohmann::json* critical = Member(form, "critical")) {
    if (!critical->is_boolean()) WrongType("critical", "true or false");
    r.critical = critical->get<bool>();
  }
  r.dedup_key = Text(form, "dedup_key");
  r.cancellation_key = Text(form, "cancellation_key");
  if (const auto send_at = Text(form, "send_at")) {
    r.send_at = core::ParseRfc3339(*send_at);
    if (!r.send_at) WrongType("send_at", "an RFC 3339 time");
  }
  if (const auto delay = Integer(form, "delay_seconds")) r.delay_seconds = static_cast<int>(*delay);
  return r;
}

// Version 1 and the tenant.
NotificationRequest DecodeVersion2(const nlohmann::json& form) {
  NotificationRequest r = DecodeVersion1(form);
  r.tenant = Text(form, "tenant");
  return r;
}

// Version 2, the actions and the tags.
NotificationRequest DecodeVersion3(const nlohmann::json& form) {
  NotificationRequest r = DecodeVersion2(form);
  if (const nlohmann::json* actions = Member(form, "actions")) {
    try {
      r.actions = ActionsFromJson(*actions);
    } catch (const std::invalid_argument& e) {
      throw StoredRequestError(std::string("stored request: ") + e.what());
    }
  }
  if (const nlohmann::json* tags = Member(form, "tags")) {
    if (!tags->is_array()) WrongType("tags", "an array");
    for (const nlohmann::json& tag : *tags) {
      if (!tag.is_string()) WrongType("tags", "an array of strings");
      r.tags.push_back(tag.get<std::string>());
    }
  }
  return r;
}

}  // namespace

int StoredRequestVersionOf(const NotificationRequest& request) {
  if (!request.actions.empty() || !request.tags.empty()) return 3;
  return request.tenant ? 2 : 1;
}

nlohmann::json EncodeStoredRequest(const NotificationRequest& r) {
  nlohmann::json form = {
      {"user_id", r.user_id}, {"type", r.type}, {"data", r.data}, {"critical", r.critical}};
  if (!r.title.empty()) form["title"] = r.title;
  if (!r.body.empty()) form["body"] = r.body;
  if (r.category) form["category"] = *r.category;
  if (r.link) form["link"] = *r.link;
  if (r.dedup_key) form["dedup_key"] = *r.dedup_key;
  if (r.cancellation_key) form["cancellation_key"] = *r.cancellation_key;
  if (r.send_at) form["send_at"] = core::FormatRfc3339Micros(*r.send_at);
  if (r.delay_seconds) form["delay_seconds"] = *r.delay_seconds;
  if (r.tenant) form["tenant"] = *r.tenant;
  if (!r.actions.empty()) form["actions"] = ActionsJson(r.actions);
  if (!r.tags.empty()) form["tags"] = r.tags;
  nlohmann::json channels = nlohmann::json::array();
  for (core::ChannelKind kind : r.channels) channels.push_back(core::ChannelName(kind));
  form["channels"] = std::move(channels);
  return form;
}

NotificationRequest DecodeStoredRequest(int version, const nlohmann::json& stored) {
  switch (version) {
    case 1:
      return DecodeVersion1(stored);
    case 2:
      return DecodeVersion2(stored);
    case 3:
      return DecodeVersion3(stored);
    default:
      throw StoredRequestError("stored request: version " + std::to_string(version) +
                               " is newer than this chopar (which reads up to " +
                               std::to_string(kStoredRequestVersion) + ")");
  }
}

}  // namespace chopar::hub
