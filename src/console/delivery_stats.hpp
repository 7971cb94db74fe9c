#pragma once

#include <nlohmann/json.hpp>

#include "db/pool.hpp"

namespace chopar::console {

// The most minutes GET /v1/stats/deliveries covers (one day).
inline constexpr int kMaxStatsMinutes = 1440;

// GET /v1/stats/deliveries?minutes=n: {"minutes": [{"at", "channel",
// "status", "count"}]}: the deliveries created in each of the last `minutes`
// minutes (the current one included, "at" its start), by channel and the
// status they have now; minutes without deliveries are absent. Ordered by
// at, channel, status. Throws core::RequestError 400 invalid_field for minutes
// outside 1..kMaxStatsMinutes. Thread-safe.
nlohmann::json DeliveriesPerMinute(db::Pool& pool, int minutes);

// GET /v1/stats/overview: what the console's overview shows at a glance:
// {"queue_depth" (queued + sending), "queued", "due" (queued and due now),
// "sending", "schedules_due" (enabled schedules whose firing time has
// passed), "schedule_lag_seconds" (how late the most overdue one is, 0 when
// none), "last_hour": {status: count} of the deliveries created in the last
// hour, "failure_rate": failed / (sent + failed) of those, null when there
// are neither}. Thread-safe.
nlohmann::json Overview(db::Pool& pool);

}  // namespace chopar::console
