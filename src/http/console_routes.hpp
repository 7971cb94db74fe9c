#pragma once

#include <string>

#include "db/pool.hpp"
#include "db/read_router.hpp"
#include "http/router.hpp"
#include "hub/user_service.hpp"

namespace chopar::http {

// What the admin console and the bell's Web Push opt-in need beyond the
// endpoints of api.hpp (docs/api.md "Console support"):
//   server key:  GET /v1/sink/messages, POST /v1/deliveries/{id}/retry,
//                GET /v1/schedules, GET /v1/stats/deliveries,
//                GET /v1/stats/overview, GET /v1/users,
//                GET /v1/users/{id}/push-subscriptions
//   subscriber:  GET /v1/inbox/vapid-public-key (404 not_found when Web Push
//                is not configured), POST /v1/inbox/push-subscriptions
// `pool` and `users` must outlive the router; `vapid_public_key` is
// [channels.push] vapid_public_key (empty: Web Push is not configured).
// The lists and stats read where `reads` sends them (null: on `pool`).
void RegisterConsoleRoutes(Router& router, db::Pool& pool, hub::UserService& users,
                           std::string vapid_public_key, db::ReadRouter* reads = nullptr);

}  // namespace chopar::http
