#pragma once

#include <nlohmann/json.hpp>

#include "http/router.hpp"

namespace chopar::http {

// docs/api.md "Channels" (no credentials: nothing in it is secret):
// GET /v1/channels → 200 {"channels": [{"name", "address", "default",
// "template_fields", "settings"}]}, every delivery channel in the order the
// API lists them, from the channel registry (core::InfoOf) and the template targets. The
// console and the bell build their channel columns and switches from it.
void RegisterChannelRoutes(Router& router);

// The body of GET /v1/channels. Pure.
nlohmann::json ChannelsDocument();

}  // namespace chopar::http
