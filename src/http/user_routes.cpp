// Users and their addresses (docs/api.md "Users and addresses").
#include <chrono>

#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "http/api.hpp"
#include "http/subscriber_token.hpp"
#include "http/tenancy.hpp"
#include "http/user_view.hpp"

namespace chopar::http {
namespace {

// A key confined to a tenant sees the user's membership of that tenant
// only, never which other tenants the user belongs to.
nlohmann::json UserViewFor(const Request& request, hub::User user) {
  if (const auto confined = ConfinedTenant(request)) user.tenants = {*confined};
  return UserView(user);
}

struct PutUser {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    return JsonResponse(
        200,
        UserViewFor(request, users.PutUser(user_id, hub::ParseUserUpdate(ParseJsonObject(request)),
                                           ConfinedTenant(request))));
  }
};

struct GetUser {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200, UserViewFor(request, users.GetUser(request.Id("id"), ConfinedTenant(request))));
  }
};

struct PutTelegram {
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    return JsonResponse(
        200, TelegramView(user_id, users.PutTelegram(
                                       user_id, hub::ParseTelegramChat(ParseJsonObject(request)))));
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
    const auto subscription =
        users.AddPushSubscription(user_id, parsed, hub::UserService::EndpointOfAnother::kMove);
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

// A token for the user's browser, so the inbox can be read without the API
// key: of the user's current generation, valid for `ttl` seconds.
struct GetSubscriberToken {
  hub::InboxService& inbox;
  std::string secret;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const std::int64_t ttl =
        request.query.GetInt("ttl", kMinTokenTtl, kMaxTokenTtl).value_or(kDefaultTokenTtl);
    const auto generation = inbox.TokenGeneration(user_id);
    if (!generation) throw core::UserNotFound(user_id);
    const auto now =
        std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    const auto expires = now + std::chrono::seconds(ttl);
    return JsonResponse(200, {{"token", MakeSubscriberToken(secret, user_id, *generation,
                                                            expires.time_since_epoch().count())},
                              {"expires_at", core::FormatRfc3339(expires)}});
  }
};

// Refuses every token of the user issued so far.
struct RevokeSubscriberTokens {
  hub::InboxService& inbox;
  Response operator()(const Request& request) const {
    const std::int64_t user_id = request.Id("id");
    const auto generation = inbox.RevokeTokens(user_id);
    if (!generation) throw core::UserNotFound(user_id);
    return JsonResponse(200, {{"token_generation", *generation}});
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
  router.Add("POST", "/v1/users/{id}/token/revoke", Auth::kServerKey,
             RevokeSubscriberTokens{deps.inbox});
}

}  // namespace chopar::http
