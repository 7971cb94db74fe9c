#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "db/pool.hpp"

namespace chopar::hub {

// Users and their addresses (API.md "Users and addresses"). Every method
// validates first and throws core::ApiError (400 invalid_field / invalid_json,
// 404 user_not_found / not_found) before writing anything. Thread-safe.
class UserService {
 public:
  struct Options {
    bool allow_http_push_endpoints = false;  // tests against a local push service
    // Called inside PutUser's transaction after a user's time zone changed
    // (not on creation), so whatever follows the zone (schedules) moves
    // atomically with it. May throw to abort the update.
    std::function<void(db::Transaction&, std::int64_t user_id)> timezone_changed;
  };
  UserService(db::Pool& pool, Options options) : pool_(pool), options_(std::move(options)) {}

  // PUT /v1/users/{id}: create or merge. Absent fields are kept, null clears;
  // `preferences` is merged key by key (a null value removes the key).
  // Returns the user as GetUser does.
  nlohmann::json PutUser(std::int64_t user_id, const nlohmann::json& body);
  // GET /v1/users/{id}: the user plus "channels" addressability.
  nlohmann::json GetUser(std::int64_t user_id);

  // PUT /v1/users/{id}/telegram {"chat_id": n}: connect (active).
  nlohmann::json PutTelegram(std::int64_t user_id, const nlohmann::json& body);
  // DELETE /v1/users/{id}/telegram; idempotent.
  void DeleteTelegram(std::int64_t user_id);

  struct Subscription {
    std::int64_t id;
    bool created;
  };
  // POST /v1/users/{id}/push-subscriptions with the browser's PushSubscription
  // JSON. The same endpoint again returns the same id (created = false).
  Subscription AddPushSubscription(std::int64_t user_id, const nlohmann::json& body);
  // DELETE /v1/users/{id}/push-subscriptions/{sub_id}; 404 if not the user's.
  void DeletePushSubscription(std::int64_t user_id, std::int64_t subscription_id);

 private:
  db::Pool& pool_;
  Options options_;
};

}  // namespace chopar::hub
