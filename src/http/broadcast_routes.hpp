#pragma once

#include "broadcast/broadcast_service.hpp"
#include "broadcast/topic_service.hpp"
#include "http/router.hpp"

namespace chopar::http {

// docs/api.md "Topics and broadcasts": PUT/DELETE /v1/topics/{key},
// PUT/DELETE/GET /v1/topics/{key}/subscribers, POST /v1/broadcasts,
// GET /v1/broadcasts/{id}, POST /v1/broadcasts/{id}/cancel. The services
// must outlive the router.
void RegisterBroadcastRoutes(Router& router, broadcast::TopicService& topics,
                             broadcast::BroadcastService& broadcasts);

}  // namespace chopar::http
