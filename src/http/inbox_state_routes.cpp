// Seen, read, unread, archived, snoozed: the states of a user's inbox items,
// changed by the user's browser or by the application (docs/api.md "Inbox
// states").
#include "http/inbox_state_routes.hpp"

#include <chrono>
#include <string>

#include "core/metrics.hpp"
#include "core/request_error.hpp"
#include "core/tags.hpp"
#include "core/type_name.hpp"
#include "http/json_view.hpp"
#include "http/tenancy.hpp"

namespace chopar::http {
namespace {

struct StateRoute {
  const char* path;  // after /v1/inbox/ and /v1/users/{id}/notifications/
  hub::InboxChange change;
};

constexpr StateRoute kStateRoutes[] = {
    {"seen", hub::InboxChange::kSeen},
    {"read", hub::InboxChange::kRead},
    {"unread", hub::InboxChange::kUnread},
    {"archive", hub::InboxChange::kArchived},
    {"unarchive", hub::InboxChange::kUnarchived},
    {"snooze", hub::InboxChange::kSnoozed},
    {"unsnooze", hub::InboxChange::kUnsnoozed},
};

hub::StateChangeRequest ParseChange(const Request& request, hub::InboxChange change) {
  return hub::ParseStateChangeRequest(ParseJsonObject(request), change,
                                      std::chrono::system_clock::now());
}

// chopar_inbox_state_changes_total{change}: the items each change changed.
core::Counter& ChangesCounter(core::MetricsRegistry& metrics, hub::InboxChange change) {
  return metrics.GetCounter("chopar_inbox_state_changes_total",
                            "Inbox items whose state a request changed, by change",
                            {{"change", std::string(hub::InboxChangeName(change))}});
}

// {"updated": n}, counted.
Response Changed(core::Counter& changes, std::int64_t updated) {
  changes.Inc(static_cast<double>(updated));
  return JsonResponse(200, {{"updated", updated}});
}

struct ChangeInboxState {
  hub::InboxService& inbox;
  hub::InboxChange change;
  core::Counter& changes;
  Response operator()(const Request& request) const {
    const auto parsed = ParseChange(request, change);
    return Changed(changes, inbox.ChangeState(*request.subscriber, change, parsed));
  }
};

struct ChangeUserInboxState {
  hub::InboxService& inbox;
  hub::InboxChange change;
  core::Counter& changes;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const auto parsed = ParseChange(request, change);
    if (!inbox.UserExists(user_id)) throw core::UserNotFound(user_id);
    return Changed(changes, inbox.ChangeState(user_id, change, parsed));
  }
};

}  // namespace

hub::InboxService::Filter InboxQueryFilter(const Request& request) {
  hub::InboxService::Filter filter;
  if (const auto categories = request.query.Get("category")) {
    std::string_view rest = *categories;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view category = rest.substr(0, comma);
      if (!core::IsTypeName(category) || filter.categories.size() == hub::kMaxCategoryFilter) {
        throw core::InvalidField("category",
                                 "category must be 1 to 20 categories (^[a-z]+(\\.[a-z_]+)*$) "
                                 "separated by commas");
      }
      filter.categories.emplace_back(category);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  filter.tag = request.query.Get("tag");
  if (filter.tag && !core::IsTagName(*filter.tag)) {
    throw core::InvalidField("tag", "tag must match ^[a-z0-9][a-z0-9_.:-]{0,49}$");
  }
  filter.tenant = QueryTenant(request);
  return filter;
}

void RegisterInboxStateRoutes(Router& router, const Dependencies& deps) {
  for (const StateRoute& route : kStateRoutes) {
    core::Counter& changes = ChangesCounter(deps.metrics, route.change);
    router.Add("POST", std::string("/v1/inbox/") + route.path, Auth::kSubscriber,
               ChangeInboxState{deps.inbox, route.change, changes});
    router.Add("POST", std::string("/v1/users/{id}/notifications/") + route.path, Auth::kServerKey,
               ChangeUserInboxState{deps.inbox, route.change, changes});
  }
}

}  // namespace chopar::http
