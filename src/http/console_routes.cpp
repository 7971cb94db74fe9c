// The endpoints behind the admin console and the bell's push opt-in
// (docs/api.md "Console support").
#include "http/console_routes.hpp"

#include "console/delivery_retry.hpp"
#include "console/delivery_stats.hpp"
#include "console/directory.hpp"
#include "console/sink_inbox.hpp"
#include "core/request_error.hpp"
#include "http/console_view.hpp"
#include "http/json_view.hpp"
#include "http/message.hpp"
#include "http/notification_view.hpp"
#include "http/page_params.hpp"
#include "http/schedule_view.hpp"
#include "http/user_view.hpp"
#include "hub/user_request.hpp"

namespace chopar::http {
namespace {

struct ListSinkMessages {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    console::SinkFilter filter;
    filter.channel = request.query.Get("channel");  // validated by the reader
    filter.user_id = request.query.GetInt("user_id", 1, INT64_MAX);
    filter.limit = LimitParam(request, filter.limit, 200);
    filter.cursor = request.query.Get("cursor");
    return JsonResponse(200, PageView(console::ListSinkMessages(pool, filter), SinkMessageView));
  }
};

struct RetryDelivery {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(200, DeliveryView(console::RetryDelivery(pool, request.Id("id"))));
  }
};

struct ListSchedules {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200,
        PageView(console::ListSchedules(pool, request.query.GetInt("user_id", 1, INT64_MAX),
                                        LimitParam(request, 50, 200), request.query.Get("cursor")),
                 ScheduleView));
  }
};

struct DeliveryStats {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    const auto minutes = request.query.GetInt("minutes", 1, console::kMaxStatsMinutes).value_or(60);
    return JsonResponse(200, DeliveriesPerMinuteView(
                                 console::DeliveriesPerMinute(pool, static_cast<int>(minutes))));
  }
};

struct Overview {
  db::Pool& pool;
  Response operator()(const Request&) const {
    return JsonResponse(200, OverviewView(console::ReadOverview(pool)));
  }
};

struct ListUsers {
  db::Pool& pool;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    return JsonResponse(200, PageView(console::ListUsers(pool, users, LimitParam(request, 50, 100),
                                                         request.query.Get("cursor")),
                                      UserView));
  }
};

struct ListPushSubscriptions {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200, PushSubscriptionsView(console::ListPushSubscriptions(pool, request.Id("id"))));
  }
};

struct VapidPublicKey {
  std::string key;
  Response operator()(const Request&) const {
    if (key.empty()) throw core::NotFound("Web Push is not configured on this server");
    return JsonResponse(200, {{"public_key", key}});
  }
};

// The browser's PushSubscription JSON for the token's own user, exactly as
// POST /v1/users/{id}/push-subscriptions takes it.
struct AddInboxPushSubscription {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const auto parsed = hub::ParsePushSubscription(ParseJsonObject(request),
                                                   users.options().allow_http_push_endpoints);
    const auto subscription = users.AddPushSubscription(*request.subscriber, parsed,
                                                        hub::UserService::EndpointOfAnother::kRefuse);
    return JsonResponse(subscription.created ? 201 : 200, {{"id", subscription.id}});
  }
};

}  // namespace

void RegisterConsoleRoutes(Router& router, db::Pool& pool, hub::UserService& users,
                           std::string vapid_public_key) {
  router.Add("GET", "/v1/sink/messages", Auth::kServerKey, ListSinkMessages{pool});
  router.Add("POST", "/v1/deliveries/{id}/retry", Auth::kServerKey, RetryDelivery{pool});
  router.Add("GET", "/v1/schedules", Auth::kServerKey, ListSchedules{pool});
  router.Add("GET", "/v1/stats/deliveries", Auth::kServerKey, DeliveryStats{pool});
  router.Add("GET", "/v1/stats/overview", Auth::kServerKey, Overview{pool});
  router.Add("GET", "/v1/users", Auth::kServerKey, ListUsers{pool, users});
  router.Add("GET", "/v1/users/{id}/push-subscriptions", Auth::kServerKey,
             ListPushSubscriptions{pool});
  router.Add("GET", "/v1/inbox/vapid-public-key", Auth::kSubscriber,
             VapidPublicKey{std::move(vapid_public_key)});
  router.Add("POST", "/v1/inbox/push-subscriptions", Auth::kSubscriber,
             AddInboxPushSubscription{users});
}

}  // namespace chopar::http
