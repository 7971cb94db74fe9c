#pragma once

#include <nlohmann/json.hpp>

#include "db/pool.hpp"
#include "http/router.hpp"
#include "hub/device.hpp"

namespace chopar::http {

// A user's mobile devices (docs/api.md "Mobile push"): POST, GET and DELETE
// /v1/users/{id}/devices with the API key, and POST /v1/inbox/devices with
// a subscriber token (the app registering its own token).
void RegisterDeviceRoutes(Router& router, db::Pool& pool);

// A device as the API shows it (GET /v1/users/{id}/devices, the export).
nlohmann::json DeviceView(const hub::Device& device);

}  // namespace chopar::http
