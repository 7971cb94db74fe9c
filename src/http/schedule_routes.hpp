#pragma once

#include "http/router.hpp"
#include "schedule/schedule_service.hpp"

namespace chopar::http {

// docs/api.md "Schedules": PUT/GET/DELETE /v1/schedules/{key}, bulk PUT
// /v1/schedules (up to 10,000 items, so its body may be up to 16 MiB) and
// POST /v1/schedules/preview. `schedules` must outlive the router.
void RegisterScheduleRoutes(Router& router, schedule::ScheduleService& schedules);

// The body limit of the bulk endpoint.
inline constexpr std::size_t kBulkScheduleBodyLimit = 16u << 20;

}  // namespace chopar::http
