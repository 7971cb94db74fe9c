#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "db/pool.hpp"

namespace chopar::console {

// The lists the console browses. Each returns {"items": [...],
// "next_cursor"}, keyset-paginated; throws core::RequestError 400 invalid_field
// for a bad limit or cursor. Thread-safe.

// GET /v1/users?limit=&cursor=: users in id order, each as GET
// /v1/users/{id} shows it. limit 1..100.
nlohmann::json ListUsers(db::Pool& pool, int limit, const std::optional<std::string>& cursor);

// GET /v1/users/{id}/push-subscriptions: {"items": [{"id", "endpoint",
// "created_at"}]}, all of them (a user has few); 404 user_not_found for an
// unknown user.
nlohmann::json ListPushSubscriptions(db::Pool& pool, std::int64_t user_id);

// GET /v1/schedules?user_id=&limit=&cursor=: schedules in key order, each as
// GET /v1/schedules/{key} shows it. limit 1..200.
nlohmann::json ListSchedules(db::Pool& pool, std::optional<std::int64_t> user_id, int limit,
                             const std::optional<std::string>& cursor);

}  // namespace chopar::console
