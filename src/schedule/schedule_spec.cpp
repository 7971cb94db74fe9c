#include "schedule/schedule_spec.hpp"

#include <set>

#include "core/text.hpp"
#include "core/time_format.hpp"
#include "hub/notify_service.hpp"
#include "hub/validation.hpp"
#include "schedule/time_zone.hpp"

namespace chopar::schedule {
namespace {

void RejectUnknownMembers(const nlohmann::json& object, const std::set<std::string>& known,
                          const std::string& prefix) {
  for (const auto& [name, value] : object.items()) {
    if (!known.contains(name))
      throw core::InvalidField(prefix + name, "unknown field " + prefix + name);
  }
}

NotificationTemplate ParseTemplate(const nlohmann::json& body, std::int64_t user_id) {
  const auto it = body.find("notification");
  if (it == body.end() || it->is_null())
    throw core::InvalidField("notification", "notification is required");
  if (!it->is_object())
    throw core::InvalidField("notification", "notification must be a JSON object");
  if (it->contains("dedup_key")) {
    throw core::InvalidField("notification.dedup_key",
                             "notification.dedup_key is set by the schedule for each occurrence "
                             "(schedule:<key>:<unix due>)");
  }
  if (it->contains("user_id")) {
    throw core::InvalidField("notification.user_id",
                             "notification.user_id: the schedule's user_id is used");
  }
  if (it->contains("send_at")) {
    throw core::InvalidField("notification.send_at",
                             "notification.send_at: a schedule recurs and one instant cannot "
                             "delay each occurrence; use notification.delay_seconds");
  }
  nlohmann::json request = *it;
  request["user_id"] = user_id;
  hub::NotificationRequest parsed;
  try {
    parsed = hub::ParseNotificationRequest(request);
  } catch (const core::RequestError& e) {
    throw core::PrefixError(e, "notification.", "notification");
  }
  // A schedule's notification keeps its own title (schedules do not render
  // templates).
  if (parsed.title.empty()) {
    throw core::InvalidField("notification.title", "notification.title is required");
  }
  NotificationTemplate t;
  t.type = std::move(parsed.type);
  t.title = std::move(parsed.title);
  t.body = std::move(parsed.body);
  t.link = std::move(parsed.link);
  t.data = std::move(parsed.data);
  t.critical = parsed.critical;
  t.delay_seconds = parsed.delay_seconds;
  t.cancellation_key = std::move(parsed.cancellation_key);
  if (const auto channels = it->find("channels"); channels != it->end() && !channels->is_null()) {
    t.channels = std::move(parsed.channels);
  }
  return t;
}

void ParseCatchup(const nlohmann::json& body, ScheduleSpec& spec) {
  const auto it = body.find("catchup");
  if (it == body.end() || it->is_null()) return;
  if (!it->is_object()) throw core::InvalidField("catchup", "catchup must be a JSON object");
  RejectUnknownMembers(*it, {"policy", "window_seconds"}, "catchup.");
  if (const auto policy = it->find("policy"); policy != it->end() && !policy->is_null()) {
    const auto parsed =
        policy->is_string() ? ParseCatchupPolicy(policy->get<std::string>()) : std::nullopt;
    if (!parsed)
      throw core::InvalidField("catchup.policy", "catchup.policy must be latest, all or none");
    spec.catchup_policy = *parsed;
  }
  if (const auto window = it->find("window_seconds"); window != it->end() && !window->is_null()) {
    if (!window->is_number_integer() || window->get<std::int64_t>() <= 0 ||
        window->get<std::int64_t>() > kMaxCatchupWindow.count()) {
      throw core::InvalidField("catchup.window_seconds",
                               "catchup.window_seconds must be an integer from 1 to " +
                                   std::to_string(kMaxCatchupWindow.count()));
    }
    spec.catchup_window = std::chrono::seconds(window->get<std::int64_t>());
  }
}

}  // namespace

std::string_view CatchupPolicyName(CatchupPolicy policy) {
  switch (policy) {
    case CatchupPolicy::kLatest:
      return "latest";
    case CatchupPolicy::kAll:
      return "all";
    case CatchupPolicy::kNone:
      return "none";
  }
  return "";
}

std::optional<CatchupPolicy> ParseCatchupPolicy(std::string_view name) {
  for (CatchupPolicy policy : {CatchupPolicy::kLatest, CatchupPolicy::kAll, CatchupPolicy::kNone}) {
    if (CatchupPolicyName(policy) == name) return policy;
  }
  return std::nullopt;
}

bool IsValidScheduleKey(std::string_view key) {
  if (key.empty() || key.size() > 200) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) continue;
    if (i > 0 && (c == '_' || c == '.' || c == ':' || c == '-')) continue;
    return false;
  }
  return true;
}

CronPattern ParseCronField(std::string_view text, const char* field) {
  try {
    return ParseCron(text);
  } catch (const CronError& e) {
    throw core::InvalidField(field, e.what());
  }
}

const date::time_zone* ParseZoneField(std::string_view name, const char* field) {
  try {
    return FindTimeZone(name);
  } catch (const UnknownTimeZoneError& e) {
    throw core::InvalidField(field, std::string(field) + ": " + e.what());
  }
}

ScheduleSpec ParseScheduleSpec(std::string_view key, const nlohmann::json& body) {
  hub::RequireObject(body);
  if (!IsValidScheduleKey(key)) {
    throw core::InvalidField(
        "key",
        "key must be 1 to 200 characters of letters, digits, '_', '.', ':' and '-', "
        "starting with a letter or digit");
  }
  RejectUnknownMembers(
      body, {"key", "user_id", "cron", "timezone", "notification", "catchup", "enabled"}, "");
  if (const auto it = body.find("key"); it != body.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>() != key) {
      throw core::InvalidField("key", "key in the body must equal the key in the path");
    }
  }
  ScheduleSpec spec;
  spec.key = std::string(key);
  spec.user_id = hub::RequireId(body, "user_id");
  spec.cron = std::string(core::TrimBlanks(hub::RequireString(body, "cron", 1, 200)));
  spec.pattern = ParseCronField(spec.cron, "cron");
  if (const auto it = body.find("timezone"); it != body.end() && !it->is_null()) {
    if (!it->is_string())
      throw core::InvalidField("timezone", "timezone must be an IANA zone name or null");
    spec.timezone = it->get<std::string>();
    (void)ParseZoneField(*spec.timezone, "timezone");
  }
  spec.notification = ParseTemplate(body, spec.user_id);
  ParseCatchup(body, spec);
  if (const auto it = body.find("enabled"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) throw core::InvalidField("enabled", "enabled must be true or false");
    spec.enabled = it->get<bool>();
  }
  return spec;
}

std::vector<ScheduleSpec> ParseScheduleSpecs(const nlohmann::json& body) {
  hub::RequireObject(body);
  const auto items = body.find("schedules");
  if (items == body.end() || !items->is_array()) {
    throw core::InvalidField("schedules", "schedules must be an array of schedules");
  }
  if (items->size() > kMaxBulkSchedules) {
    throw core::InvalidField("schedules", "at most " + std::to_string(kMaxBulkSchedules) +
                                              " schedules per request, got " +
                                              std::to_string(items->size()));
  }
  std::vector<ScheduleSpec> specs;
  specs.reserve(items->size());
  for (std::size_t i = 0; i < items->size(); ++i) {
    const std::string label = "schedules[" + std::to_string(i) + "]";
    const nlohmann::json& item = (*items)[i];
    if (!item.is_object())
      throw core::InvalidField(label, label + ": each schedule must be a JSON object");
    try {
      const auto key = item.find("key");
      if (key == item.end() || !key->is_string())
        throw core::InvalidField("key", "key is required");
      specs.push_back(ParseScheduleSpec(key->get<std::string>(), item));
    } catch (const core::RequestError& e) {
      throw core::PrefixError(e, label + ".", label);
    }
  }
  return specs;
}

PreviewRequest ParsePreviewRequest(const nlohmann::json& body) {
  hub::RequireObject(body);
  PreviewRequest request;
  request.pattern = ParseCronField(hub::RequireString(body, "cron", 1, 200), "cron");
  const std::string zone_name = hub::OptionalString(body, "timezone", 1, 64).value_or("UTC");
  request.zone = ParseZoneField(zone_name, "timezone");
  if (const auto text = hub::OptionalString(body, "after", 1, 64)) {
    request.after = core::ParseRfc3339(*text);
    if (!request.after)
      throw core::InvalidField("after",
                               "after must be an RFC 3339 time such as 2027-03-27T00:00:00Z");
  }
  if (const auto it = body.find("count"); it != body.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
        it->get<std::int64_t>() > kMaxPreviewCount) {
      throw core::InvalidField(
          "count", "count must be an integer from 1 to " + std::to_string(kMaxPreviewCount));
    }
    request.count = it->get<int>();
  }
  return request;
}

}  // namespace chopar::schedule
