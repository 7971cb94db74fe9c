#pragma once

#include "db/pool.hpp"
#include "http/router.hpp"

namespace chopar::http {

// A user's mobile devices (docs/api.md "Mobile push"): POST, GET and DELETE
// /v1/users/{id}/devices with the API key, and POST /v1/inbox/devices with
// a subscriber token (the app registering its own token).
void RegisterDeviceRoutes(Router& router, db::Pool& pool);

}  // namespace chopar::http
