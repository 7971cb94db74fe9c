#include <algorithm>

#include "core/tags.hpp"
#include "core/time_format.hpp"
#include "hub/notify_service.hpp"
#include "hub/validation.hpp"
#include "templates/template.hpp"

namespace chopar::hub {

NotificationRequest ParseNotificationRequest(const nlohmann::json& body) {
  RequireObject(body);
  NotificationRequest r;
  r.user_id = RequireId(body, "user_id");
  r.type = RequireString(body, "type", 1, 100);
  if (!IsValidType(r.type)) {
    throw core::InvalidField("type", "type must match ^[a-z]+(\\.[a-z_]+)*$, e.g. task.due");
  }
  r.title = OptionalString(body, "title", 1, 500).value_or("");
  r.body = OptionalString(body, "body", 0, 10000).value_or("");
  r.category = OptionalString(body, "category", 1, 100);
  if (r.category && !templates::IsValidCategory(*r.category)) {
    throw core::InvalidField("category",
                             "category must match ^[a-z]+(\\.[a-z_]+)*$, e.g. marketing");
  }
  r.link = OptionalString(body, "link", 1, 2000);
  if (r.link && !IsInternalLink(*r.link)) {
    throw core::InvalidField(
        "link", "link must be an internal path such as /tasks/1 (no scheme, not //host)");
  }
  if (const auto it = body.find("data"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) throw core::InvalidField("data", "data must be a JSON object");
    RequireNoNul(*it, "data");
    r.data = *it;
  }
  r.dedup_key = OptionalString(body, "dedup_key", 1, 255);
  if (const auto it = body.find("channels"); it != body.end() && !it->is_null()) {
    if (!it->is_array())
      throw core::InvalidField("channels", "channels must be an array of channel names");
    r.channels.clear();
    for (const auto& name : *it) {
      const auto kind =
          name.is_string() ? core::ParseChannel(name.get<std::string>()) : std::nullopt;
      if (!kind) {
        throw core::InvalidField("channels", "unknown channel " + name.dump() + "; expected " +
                                                 core::ChannelNamesText());
      }
      if (std::find(r.channels.begin(), r.channels.end(), *kind) == r.channels.end()) {
        r.channels.push_back(*kind);
      }
    }
  }
  if (const auto it = body.find("critical"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) throw core::InvalidField("critical", "critical must be true or false");
    r.critical = it->get<bool>();
  }
  if (const auto send_at = OptionalString(body, "send_at", 1, 64)) {
    r.send_at = core::ParseRfc3339(*send_at);
    if (!r.send_at) {
      throw core::InvalidField("send_at",
                               "send_at must be an RFC 3339 time such as 2026-12-03T18:00:00Z");
    }
  }
  if (const auto it = body.find("delay_seconds"); it != body.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
        it->get<std::int64_t>() > kMaxDelaySeconds) {
      throw core::InvalidField("delay_seconds", "delay_seconds must be an integer from 0 to " +
                                                    std::to_string(kMaxDelaySeconds));
    }
    if (r.send_at)
      throw core::InvalidField("delay_seconds", "give send_at or delay_seconds, not both");
    r.delay_seconds = static_cast<int>(it->get<std::int64_t>());
  }
  r.cancellation_key = OptionalString(body, "cancellation_key", 1, 255);
  r.tenant = OptionalString(body, "tenant", 1, 100);
  if (r.tenant && !IsValidTenantKey(*r.tenant)) {
    throw core::InvalidField("tenant", "tenant must be a tenant key");
  }
  if (const auto it = body.find("actions"); it != body.end()) r.actions = ParseActions(*it);
  if (const auto it = body.find("tags"); it != body.end()) r.tags = core::ParseTags(*it);
  return r;
}

}  // namespace chopar::hub
