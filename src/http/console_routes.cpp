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

// Where the console's lists and stats read: spread over the standbys when
// [database] read_urls has any (db::ReadRouter), else the primary.
struct Reads {
  db::Pool& pool;
  db::ReadRouter* router;
  template <typename Fn>
  auto operator()(Fn read) const {
    return db::ReadOn(router, pool, std::move(read));
  }
};

struct ListSinkMessages {
  Reads reads;
  Response operator()(const Request& request) const {
    console::SinkFilter filter;
    filter.channel = request.query.Get("channel");  // validated by the reader
    filter.user_id = request.query.GetInt("user_id", 1, INT64_MAX);
    filter.limit = LimitParam(request, filter.limit, 200);
    filter.cursor = request.query.Get("cursor");
    return JsonResponse(
        200,
        PageView(reads([&](db::Pool& pool) { return console::ListSinkMessages(pool, filter); }),
                 SinkMessageView));
  }
};

struct RetryDelivery {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    return JsonResponse(200, DeliveryView(console::RetryDelivery(pool, request.Id("id"))));
  }
};

struct ListSchedules {
  Reads reads;
  Response operator()(const Request& request) const {
    const auto user_id = request.query.GetInt("user_id", 1, INT64_MAX);
    const int limit = LimitParam(request, 50, 200);
    const auto cursor = request.query.Get("cursor");
    return JsonResponse(200, PageView(reads([&](db::Pool& pool) {
                                        return console::ListSchedules(pool, user_id, limit, cursor);
                                      }),
                                      ScheduleView));
  }
};

struct DeliveryStats {
  Reads reads;
  Response operator()(const Request& request) const {
    const auto minutes = request.query.GetInt("minutes", 1, console::kMaxStatsMinutes).value_or(60);
    return JsonResponse(200, DeliveriesPerMinuteView(reads([&](db::Pool& pool) {
                          return console::DeliveriesPerMinute(pool, static_cast<int>(minutes));
                        })));
  }
};

struct Overview {
  Reads reads;
  Response operator()(const Request&) const {
    return JsonResponse(
        200, OverviewView(reads([](db::Pool& pool) { return console::ReadOverview(pool); })));
  }
};

struct ListUsers {
  Reads reads;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const int limit = LimitParam(request, 50, 100);
    const auto cursor = request.query.Get("cursor");
    return JsonResponse(200, PageView(reads([&](db::Pool& pool) {
                                        return console::ListUsers(pool, users, limit, cursor);
                                      }),
                                      UserView));
  }
};

struct ListPushSubscriptions {
  Reads reads;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    return JsonResponse(200, PushSubscriptionsView(reads([&](db::Pool& pool) {
                          return console::ListPushSubscriptions(pool, user_id);
                        })));
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
    const auto subscription = users.AddPushSubscription(
        *request.subscriber, parsed, hub::UserService::EndpointOfAnother::kRefuse);
    return JsonResponse(subscription.created ? 201 : 200, {{"id", subscription.id}});
  }
};

}  // namespace

void RegisterConsoleRoutes(Router& router, db::Pool& pool, hub::UserService& users,
                           std::string vapid_public_key, db::ReadRouter* reads) {
  const Reads lists{pool, reads};
  router.Add("GET", "/v1/sink/messages", Auth::kServerKey, ListSinkMessages{lists});
  router.Add("POST", "/v1/deliveries/{id}/retry", Auth::kServerKey, RetryDelivery{pool});
  router.Add("GET", "/v1/schedules", Auth::kServerKey, ListSchedules{lists});
  router.Add("GET", "/v1/stats/deliveries", Auth::kServerKey, DeliveryStats{lists});
  router.Add("GET", "/v1/stats/overview", Auth::kServerKey, Overview{lists});
  router.Add("GET", "/v1/users", Auth::kServerKey, ListUsers{lists, users});
  router.Add("GET", "/v1/users/{id}/push-subscriptions", Auth::kServerKey,
             ListPushSubscriptions{lists});
  router.Add("GET", "/v1/inbox/vapid-public-key", Auth::kSubscriber,
             VapidPublicKey{std::move(vapid_public_key)});
  router.Add("POST", "/v1/inbox/push-subscriptions", Auth::kSubscriber,
             AddInboxPushSubscription{users});
}

}  // namespace chopar::http
