#pragma once

#include <nlohmann/json.hpp>

#include "broadcast/broadcast.hpp"
#include "broadcast/topic_service.hpp"

namespace chopar::http {

// GET /v1/broadcasts/{id}: {"id", "topic", "audience", "status",
// "recipients", "created", "dedup_key", "created_at", "finished_at",
// "stopped": {"deliveries", "delayed", "digest_items"}, "stopping"}.
nlohmann::json BroadcastView(const broadcast::Broadcast& broadcast);

// PUT /v1/topics/{key}: {"key", "name", "created_at", "updated_at"}.
nlohmann::json TopicView(const broadcast::Topic& topic);

// An item of GET /v1/topics/{key}/subscribers: {"user_id", "created_at"}.
nlohmann::json SubscriberView(const broadcast::Subscriber& subscriber);

}  // namespace chopar::http
