// Users and their addresses (docs/api.md "Users and addresses").
#include "core/request_error.hpp"
#include "http/api.hpp"
#include "http/subscriber_token.hpp"

namespace chopar::http {
namespace {

struct PutUser {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    return JsonResponse(200,
                        users.PutUser(user_id, hub::ParseUserUpdate(ParseJsonObject(request))));
  }
};

struct GetUser {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    return JsonResponse(200, users.GetUser(request.Id("id")));
  }
};

struct PutTelegram {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    return JsonResponse(
        200, users.PutTelegram(user_id, hub::ParseTelegramChat(ParseJsonObject(request))));
  }
};

struct DeleteTelegram {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    users.DeleteTelegram(request.Id("id"));
    return NoContentResponse();
  }
};

struct AddPushSubscription {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const auto parsed = hub::ParsePushSubscription(ParseJsonObject(request),
                                                   users.options().allow_http_push_endpoints);
    const auto subscription = users.AddPushSubscription(user_id, parsed);
    return JsonResponse(subscription.created ? 201 : 200, {{"id", subscription.id}});
  }
};

struct DeletePushSubscription {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    users.DeletePushSubscription(request.Id("id"), request.Id("sub_id"));
    return NoContentResponse();
  }
};

// A token for the user's browser, so the inbox can be read without the API key.
struct GetSubscriberToken {
  hub::InboxService& inbox;
  std::string secret;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    if (!inbox.UserExists(user_id)) throw core::UserNotFound(user_id);
    return JsonResponse(200, {{"token", MakeSubscriberToken(secret, user_id)}});
  }
};

}  // namespace

void RegisterUserRoutes(Router& router, const Dependencies& deps, const std::string& inbox_secret) {
  router.Add("PUT", "/v1/users/{id}", Auth::kServerKey, PutUser{deps.users});
  router.Add("GET", "/v1/users/{id}", Auth::kServerKey, GetUser{deps.users});
  router.Add("PUT", "/v1/users/{id}/telegram", Auth::kServerKey, PutTelegram{deps.users});
  router.Add("DELETE", "/v1/users/{id}/telegram", Auth::kServerKey, DeleteTelegram{deps.users});
  router.Add("POST", "/v1/users/{id}/push-subscriptions", Auth::kServerKey,
             AddPushSubscription{deps.users});
  router.Add("DELETE", "/v1/users/{id}/push-subscriptions/{sub_id}", Auth::kServerKey,
             DeletePushSubscription{deps.users});
  router.Add("GET", "/v1/users/{id}/token", Auth::kServerKey,
             GetSubscriberToken{deps.inbox, inbox_secret});
}

}  // namespace chopar::http
