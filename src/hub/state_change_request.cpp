#include "hub/state_change_request.hpp"

#include "core/request_error.hpp"
#include "core/tags.hpp"
#include "core/time_format.hpp"
#include "core/type_name.hpp"
#include "hub/validation.hpp"

namespace chopar::hub {
namespace {

std::vector<std::string> ParseCategories(const nlohmann::json& body) {
  const auto found = body.find("category");
  if (found == body.end() || found->is_null()) return {};
  const nlohmann::json list = found->is_array() ? *found : nlohmann::json::array({*found});
  if (list.empty() || list.size() > kMaxCategoryFilter) {
    throw core::InvalidField("category", "category must be a category or an array of 1 to 20");
  }
  std::vector<std::string> categories;
  for (const auto& category : list) {
    if (!category.is_string() || !core::IsTypeName(category.get<std::string>())) {
      throw core::InvalidField("category",
                               "category must match ^[a-z]+(\\.[a-z_]+)*$, e.g. marketing");
    }
    categories.push_back(category.get<std::string>());
  }
  return categories;
}

core::TimePoint ParseSnoozeEnd(const nlohmann::json& body, core::TimePoint now) {
  const auto until = body.find("until");
  const auto minutes = body.find("minutes");
  const bool has_until = until != body.end() && !until->is_null();
  const bool has_minutes = minutes != body.end() && !minutes->is_null();
  if (has_until == has_minutes) {
    throw core::InvalidField("until", "send exactly one of until (RFC 3339) or minutes");
  }
  const auto latest = now + std::chrono::minutes(kMaxSnoozeMinutes);
  if (has_minutes) {
    if (!minutes->is_number_integer() || minutes->get<std::int64_t>() < 1 ||
        minutes->get<std::int64_t>() > kMaxSnoozeMinutes) {
      throw core::InvalidField("minutes", "minutes must be an integer from 1 to 129600 (90 days)");
    }
    return now + std::chrono::minutes(minutes->get<std::int64_t>());
  }
  const auto parsed = until->is_string() ? core::ParseRfc3339(until->get<std::string>())
                                         : std::optional<core::TimePoint>();
  if (!parsed) {
    throw core::InvalidField("until", "until must be an RFC 3339 time, e.g. 2026-01-02T09:00:00Z");
  }
  if (*parsed <= now || *parsed > latest) {
    throw core::InvalidField("until", "until must be in the future, at most 90 days ahead");
  }
  return *parsed;
}

}  // namespace

std::string_view InboxChangeName(InboxChange change) {
  switch (change) {
    case InboxChange::kSeen:
      return "seen";
    case InboxChange::kRead:
      return "read";
    case InboxChange::kUnread:
      return "unread";
    case InboxChange::kArchived:
      return "archived";
    case InboxChange::kUnarchived:
      return "unarchived";
    case InboxChange::kSnoozed:
      return "snoozed";
    case InboxChange::kUnsnoozed:
      return "unsnoozed";
  }
  return "read";
}

StateChangeRequest ParseStateChangeRequest(const nlohmann::json& body, InboxChange change,
                                           core::TimePoint now) {
  RequireObject(body);
  const auto all = body.find("all");
  const auto ids = body.find("ids");
  StateChangeRequest request;
  request.all = all != body.end() && all->is_boolean() && all->get<bool>();
  if (all != body.end() && !all->is_boolean()) {
    throw core::InvalidField("all", "all must be true or false");
  }
  if (!request.all) {
    if (ids == body.end() || !ids->is_array()) {
      throw core::InvalidField("ids", "send {\"ids\": [1, 2]} or {\"all\": true}");
    }
    if (ids->size() > kMaxStateChangeIds) {
      throw core::InvalidField("ids", "at most 1000 ids at once");
    }
    for (const auto& id : *ids) {
      if (!id.is_number_integer()) throw core::InvalidField("ids", "ids must be integers");
      request.ids.push_back(id.get<std::int64_t>());
    }
  }
  request.categories = ParseCategories(body);
  request.tag = OptionalString(body, "tag", 1, 50);
  if (request.tag && !core::IsTagName(*request.tag)) {
    throw core::InvalidField("tag", "tag must match ^[a-z0-9][a-z0-9_.:-]{0,49}$");
  }
  request.tenant = OptionalString(body, "tenant", 1, 100);
  if (request.tenant && !IsValidTenantKey(*request.tenant)) {
    throw core::InvalidField("tenant", "tenant must be a tenant key");
  }
  if (change == InboxChange::kSnoozed) request.snoozed_until = ParseSnoozeEnd(body, now);
  return request;
}

}  // namespace chopar::hub
