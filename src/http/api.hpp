#pragma once

#include <string>

#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "http/router.hpp"
#include "http/settings.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_service.hpp"

namespace chopar::http {

// What the endpoints work with. The referenced objects must outlive the
// Server (and any Router) they are given to; all of them are thread-safe.
struct Dependencies {
  db::Pool& pool;  // /healthz
  hub::NotifyService& notify;
  hub::UserService& users;
  hub::InboxService& inbox;
  core::MetricsRegistry& metrics;  // the HTTP metrics go here; /metrics renders it
};

// Registers the endpoints of docs/api.md served by this layer, one function object
// per endpoint:
//   users:         PUT/GET /v1/users/{id}, PUT/DELETE /v1/users/{id}/telegram,
//                  POST /v1/users/{id}/push-subscriptions,
//                  DELETE /v1/users/{id}/push-subscriptions/{sub_id},
//                  GET /v1/users/{id}/token, POST /v1/users/{id}/token/revoke
//   notifications: POST /v1/notifications, POST /v1/notifications/batch,
//                  GET /v1/notifications/{id}, GET /v1/users/{id}/notifications,
//                  GET /v1/users/{id}/notifications/unread-count,
//                  POST /v1/users/{id}/notifications/read, GET /v1/deliveries
//   inbox:         GET /v1/inbox/notifications, GET /v1/inbox/unread-count,
//                  POST /v1/inbox/read, GET /v1/inbox/stream (SSE)
//   system:        GET /healthz, GET /metrics (as `metrics_access` says)
void RegisterUserRoutes(Router& router, const Dependencies& deps, const std::string& inbox_secret);
// DELETE /v1/users/{id}, POST /v1/users/erase, GET /v1/users/{id}/erasure.
void RegisterUserErasureRoutes(Router& router, const Dependencies& deps);
// GET /v1/users/{id}/export.
void RegisterUserExportRoutes(Router& router, const Dependencies& deps);
// POST /v1/users/import, whose body may be up to `import_body_limit` bytes.
void RegisterUserImportRoutes(Router& router, const Dependencies& deps,
                              std::size_t import_body_limit);
void RegisterNotificationRoutes(Router& router, const Dependencies& deps);
void RegisterInboxRoutes(Router& router, const Dependencies& deps);
// POST /v1/inbox/notifications/{id}/actions/{n}: a subscriber presses an
// event action; POST /v1/users/{id}/notifications/{notification_id}/actions/{n}:
// the application does for its user.
void RegisterInboxActionRoutes(Router& router, const Dependencies& deps);
void RegisterSystemRoutes(Router& router, const Dependencies& deps, MetricsAccess metrics_access);
// GET /healthz (the database answers on `pool`, no credentials) and GET
// /metrics (`metrics`): with the API key, to anyone, or not at all.
void RegisterSystemRoutes(Router& router, db::Pool& pool, core::MetricsRegistry& metrics,
                          MetricsAccess metrics_access);

// All of the above, and GET /openapi.yaml (http/openapi_route.hpp).
void RegisterApiRoutes(Router& router, const Dependencies& deps, const std::string& inbox_secret,
                       MetricsAccess metrics_access, std::size_t import_body_limit);

// limit (1..100), cursor and unread of a list request; core::RequestError
// kInvalidField naming the parameter for a bad value.
hub::InboxService::ListOptions InboxListOptions(const QueryParams& query);

// The most notifications one POST /v1/notifications/batch may carry.
inline constexpr std::size_t kMaxBatchSize = 1000;

}  // namespace chopar::http
