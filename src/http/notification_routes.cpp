// Creating and reading notifications with the server key (docs/api.md
// "Notifications", "Deliveries").
#include <variant>

#include "core/request_error.hpp"
#include "http/api.hpp"
#include "http/error_response.hpp"
#include "http/inbox_state_routes.hpp"
#include "http/json_view.hpp"
#include "http/notification_view.hpp"
#include "http/tenancy.hpp"

namespace chopar::http {
namespace {

// A notification's tenant: the one it names, or the confined key's own
// (a confined key naming another tenant is 403 forbidden).
hub::NotificationRequest InCallersTenant(const Request& request, hub::NotificationRequest parsed) {
  parsed.tenant = ActingTenant(request, parsed.tenant, "tenant");
  return parsed;
}

struct CreateNotification {
  hub::NotifyService& notify;
  Response operator()(const Request& request) const {
    const auto parsed =
        InCallersTenant(request, hub::ParseNotificationRequest(ParseJsonObject(request)));
    const auto result = notify.Notify(parsed);
    return JsonResponse(result.created ? 201 : 200, NotifyResultView(result));
  }
};

// Each item is validated and created on its own; one bad item never fails
// the others. Results come back in input order.
struct CreateNotificationBatch {
  hub::NotifyService& notify;
  Response operator()(const Request& request) const {
    const auto body = ParseJsonObject(request);
    const auto items = body.find("notifications");
    if (items == body.end() || !items->is_array()) {
      throw core::InvalidField("notifications", "notifications must be an array");
    }
    if (items->size() > kMaxBatchSize) {
      throw core::InvalidField(
          "notifications", "at most " + std::to_string(kMaxBatchSize) + " notifications per batch");
    }
    std::vector<nlohmann::json> results(items->size());
    std::vector<hub::NotificationRequest> valid;
    std::vector<std::size_t> valid_index;
    for (std::size_t i = 0; i < items->size(); ++i) {
      try {
        if (!(*items)[i].is_object()) {
          throw core::InvalidJson("each notification must be a JSON object");
        }
        valid.push_back(InCallersTenant(request, hub::ParseNotificationRequest((*items)[i])));
        valid_index.push_back(i);
      } catch (const core::RequestError& e) {
        results[i] = ToErrorInfo(e).ToJson();
      }
    }
    const auto created = notify.NotifyBatch(valid);
    for (std::size_t k = 0; k < created.size() && k < valid_index.size(); ++k) {
      if (const auto* result = std::get_if<hub::NotifyResult>(&created[k])) {
        results[valid_index[k]] = NotifyResultView(*result);
      } else {
        results[valid_index[k]] = ToErrorInfo(std::get<core::RequestError>(created[k])).ToJson();
      }
    }
    return JsonResponse(200, {{"results", results}});
  }
};

struct GetNotification {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    return JsonResponse(200, NotificationWithDeliveriesView(
                                 inbox.GetNotification(request.Id("id"), ConfinedTenant(request))));
  }
};

// A key confined to a tenant sees the notifications in its tenant of the
// tenant's users; ?tenant= narrows anyone's list to one tenant.
struct ListUserNotifications {
  hub::InboxService& inbox;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    auto options = InboxListOptions(request.query);
    options.filter = InboxQueryFilter(request);
    users.RequireUser(user_id, ConfinedTenant(request));
    return JsonResponse(200, PageView(inbox.List(user_id, options), NotificationView));
  }
};

struct UserUnreadCount {
  hub::InboxService& inbox;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const auto tenant = QueryTenant(request);
    users.RequireUser(user_id, ConfinedTenant(request));
    return JsonResponse(
        200,
        {{"count", inbox.UnreadCount(user_id, hub::InboxService::ReadFrom::kReadPool, tenant)}});
  }
};

struct ListDeliveries {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    hub::InboxService::DeliveryFilter filter;
    filter.status = request.query.Get("status");    // validated by the service
    filter.channel = request.query.Get("channel");  // likewise
    filter.user_id = request.query.GetInt("user_id", 1, INT64_MAX);
    if (const auto limit = request.query.GetInt("limit", 1, 500)) {
      filter.limit = static_cast<int>(*limit);
    }
    filter.cursor = request.query.Get("cursor");
    return JsonResponse(200, PageView(inbox.ListDeliveries(filter), DeliveryView));
  }
};

}  // namespace

hub::InboxService::ListOptions InboxListOptions(const QueryParams& query) {
  hub::InboxService::ListOptions options;
  if (const auto limit = query.GetInt("limit", 1, 100)) options.limit = static_cast<int>(*limit);
  options.cursor = query.Get("cursor");
  options.unread_only = query.GetBool("unread").value_or(false);
  options.seen = query.GetBool("seen");
  options.archived = query.GetBool("archived").value_or(false);
  options.snoozed = query.GetBool("snoozed").value_or(false);
  return options;
}

void RegisterNotificationRoutes(Router& router, const Dependencies& deps) {
  router.Add("POST", "/v1/notifications", Auth::kServerKey, CreateNotification{deps.notify});
  router.Add("POST", "/v1/notifications/batch", Auth::kServerKey,
             CreateNotificationBatch{deps.notify});
  router.Add("GET", "/v1/notifications/{id}", Auth::kServerKey, GetNotification{deps.inbox});
  router.Add("GET", "/v1/users/{id}/notifications", Auth::kServerKey,
             ListUserNotifications{deps.inbox, deps.users});
  router.Add("GET", "/v1/users/{id}/notifications/unread-count", Auth::kServerKey,
             UserUnreadCount{deps.inbox, deps.users});
  router.Add("GET", "/v1/deliveries", Auth::kServerKey, ListDeliveries{deps.inbox});
}

}  // namespace chopar::http
