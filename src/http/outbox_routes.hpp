#pragma once

#include <vector>

#include "http/router.hpp"
#include "outbox/outbox_stats.hpp"

namespace chopar::http {

// docs/api.md "Outbox": GET /v1/outbox/stats → {"pending", "dispatched",
// "failed_attempts", "oldest_pending_age_seconds"} summed over `sources`
// (the oldest age is the largest), and the same per source under
// "sources": {"chopar": {…}, "application": {…}}. The sources' pools must
// outlive the router.
void RegisterOutboxRoutes(Router& router, std::vector<outbox::OutboxSource> sources);

}  // namespace chopar::http
