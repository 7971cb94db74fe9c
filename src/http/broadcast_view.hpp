#pragma once

#include <nlohmann/json.hpp>

#include "broadcast/broadcast.hpp"

namespace chopar::http {

// GET /v1/broadcasts/{id}: {"id", "topic", "audience", "status",
// "recipients", "created", "dedup_key", "created_at", "finished_at",
// "stopped": {"deliveries", "delayed", "digest_items"}, "stopping"}.
nlohmann::json BroadcastView(const broadcast::Broadcast& broadcast);

}  // namespace chopar::http
