#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "db/pool.hpp"
#include "hub/user.hpp"
#include "hub/user_request.hpp"

namespace chopar::hub {

// Users and their addresses (docs/api.md "Users and addresses"). Requests
// come validated (see user_request.hpp for their parsers). A user or object
// that does not exist throws core::RequestError (kUserNotFound / kNotFound)
// before anything is written; database failures throw db::DbError.
// Thread-safe.
class UserService {
 public:
  struct Options {
    // Whether push endpoints may be http:// (tests against a local push
    // service): what callers pass to ParsePushSubscription.
    bool allow_http_push_endpoints = false;
    // Push subscriptions one user may have; one more is 409 conflict (the
    // same endpoint again is never refused).
    int max_push_subscriptions = 10;
    // Called inside PutUser's transaction after a user's time zone changed
    // (not on creation), so whatever follows the zone (schedules) moves
    // atomically with it. May throw to abort the update.
    std::function<void(db::Transaction&, std::int64_t user_id)> timezone_changed;
  };
  UserService(db::Pool& pool, Options options) : pool_(pool), options_(std::move(options)) {}

  [[nodiscard]] const Options& options() const { return options_; }

  // PUT /v1/users/{id}: creates the user or applies `update` to it (see
  // UserUpdate). Returns the user as GetUser does. Throws kInvalidField
  // "preferences" when the merged preferences would be over the bounds
  // (CheckStoredPreferences), kInvalidField "data" when the merged data
  // would be over kMaxUserDataBytes, kInvalidField "tenants[i]" for a tenant
  // that does not exist; nothing changes then.
  // `confined`: the caller's key is confined to that tenant. Then the user
  // belongs to it afterwards (created or not), its other memberships are
  // kept, `update.tenants` may only name that tenant (else kForbidden), and
  // a user that exists outside it is kUserNotFound (not revealed).
  User PutUser(std::int64_t user_id, const UserUpdate& update,
               const std::optional<std::string>& confined = std::nullopt);
  // GET /v1/users/{id}: the user and what reaches them now. `confined`: a
  // user outside that tenant is kUserNotFound.
  User GetUser(std::int64_t user_id, const std::optional<std::string>& confined = std::nullopt);
  // Whether the user belongs to `tenant`.
  bool InTenant(std::int64_t user_id, const std::string& tenant);
  // Throws kUserNotFound unless the user exists and, with `confined`,
  // belongs to that tenant.
  void RequireUser(std::int64_t user_id, const std::optional<std::string>& confined);
  // The users of `ids` that exist, by id (the console's pages).
  std::vector<User> GetUsers(std::span<const std::int64_t> ids);

  // PUT /v1/users/{id}/telegram: connect (active).
  TelegramConnection PutTelegram(std::int64_t user_id, const TelegramChat& chat);
  // DELETE /v1/users/{id}/telegram; idempotent.
  void DeleteTelegram(std::int64_t user_id);

  struct Subscription {
    std::int64_t id;
    bool created;
  };
  // Whether a subscription may take an endpoint another user has: the
  // server key may (the browser now belongs to this user); a subscriber
  // token may not (it would take another user's notifications).
  enum class EndpointOfAnother { kMove, kRefuse };
  // POST /v1/users/{id}/push-subscriptions (kMove), POST
  // /v1/inbox/push-subscriptions (kRefuse). The same endpoint again returns
  // the same id (created = false). Throws core::RequestError kConflict when
  // the user has the most subscriptions allowed, or under kRefuse when
  // another user has the endpoint (nothing changes), kUserNotFound.
  Subscription AddPushSubscription(std::int64_t user_id, const PushSubscription& subscription,
                                   EndpointOfAnother endpoint_of_another);
  // DELETE /v1/users/{id}/push-subscriptions/{sub_id}; 404 if not the user's.
  void DeletePushSubscription(std::int64_t user_id, std::int64_t subscription_id);

  // A user's preferences and the locale to speak to them in.
  struct Preferences {
    nlohmann::json preferences;
    std::string locale;
  };
  // GET /v1/inbox/preferences.
  Preferences GetPreferences(std::int64_t user_id);
  // PUT /v1/inbox/preferences: merges `preferences` (an object validated by
  // ValidatePreferences) key by key, a null removing the key
  // (MergedPreferences), and returns the result. Throws kInvalidField
  // "preferences" when the result is over the bounds (CheckStoredPreferences);
  // nothing changes then.
  nlohmann::json MergePreferences(std::int64_t user_id, const nlohmann::json& preferences);
  // Replaces a user's preferences by `change(current)` in one transaction
  // (the row locked meanwhile): what unsubscribe links and the preferences
  // page do. Returns the preferences after it. `change` must return an
  // object; it may throw to change nothing. A result over the bounds
  // (CheckStoredPreferences) throws kInvalidField "preferences" and changes
  // nothing.
  Preferences UpdatePreferences(std::int64_t user_id,
                                const std::function<nlohmann::json(nlohmann::json)>& change);

 private:
  db::Pool& pool_;
  Options options_;
};

}  // namespace chopar::hub
