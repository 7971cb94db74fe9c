#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"
#include "hub/user.hpp"
#include "hub/user_service.hpp"
#include "schedule/schedule.hpp"

namespace chopar::console {

// The lists the console browses, keyset-paginated (core::Page); throws core::RequestError 400
// invalid_field for a bad limit or cursor. Thread-safe.

// GET /v1/users?limit=&cursor=: users in id order, each read as GET
// /v1/users/{id} reads one (hub::UserService::GetUsers): two statements a
// page. limit 1..100.
core::Page<hub::User> ListUsers(db::Pool& pool, hub::UserService& users, int limit,
                                const std::optional<std::string>& cursor);

// One of a user's Web Push subscriptions, without its keys (they stay
// private); http::PushSubscriptionView is its JSON.
struct PushSubscription {
  std::int64_t id = 0;
  std::string endpoint;
  core::TimePoint created_at;
};

// GET /v1/users/{id}/push-subscriptions: all of them, oldest first (a user
// has few: [channels.push] max_subscriptions_per_user); 404 user_not_found
// for an unknown user.
std::vector<PushSubscription> ListPushSubscriptions(db::Pool& pool, std::int64_t user_id);

// GET /v1/schedules?user_id=&limit=&cursor=: schedules in key order, each
// as GET /v1/schedules/{key} reads it. limit 1..200.
core::Page<schedule::Schedule> ListSchedules(db::Pool& pool, std::optional<std::int64_t> user_id,
                                             int limit, const std::optional<std::string>& cursor);

}  // namespace chopar::console
