#pragma once

#include "http/router.hpp"
#include "workflow/engine/cancel.hpp"

namespace chopar::http {

// docs/api.md "Workflows" (server key): POST /v1/notifications/cancel
// {"cancellation_key", "user_id"?} → 200 {"canceled": n}. `canceler` must
// outlive the router.
void RegisterWorkflowRoutes(Router& router, workflow::engine::Canceler& canceler);

}  // namespace chopar::http
