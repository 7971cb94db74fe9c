#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "templates/template_store.hpp"

namespace chopar::broadcast {

// A validated POST /v1/broadcasts (docs/api.md "Topics and broadcasts").
struct BroadcastRequest {
  std::optional<std::string> topic;  // nullopt: "audience": "all"
  // The notification each recipient gets, as given (the fields of POST
  // /v1/notifications without user_id and dedup_key): stored, and parsed
  // again by each fan-out batch with ParseBroadcastNotification.
  nlohmann::json notification;
  std::optional<std::string> dedup_key;  // the request's own, 1..200 characters
};

// Parses and validates the body. Exactly one of "topic" and "audience":
// "all"; "notification" is checked as POST /v1/notifications checks its
// body (fields named "notification.…"), and may not carry user_id or
// dedup_key. Throws core::RequestError kInvalidJson / kInvalidField.
BroadcastRequest ParseBroadcastRequest(const nlohmann::json& body);

// "broadcast:<broadcast_id>": the dedup key of each recipient's notification.
std::string BroadcastDedupKey(std::int64_t broadcast_id);

// The stored notification of a broadcast as the request of one recipient
// (user_id 0, to be set) with dedup_key "broadcast:<broadcast_id>". Throws
// core::RequestError when `notification` is not valid (never for one that
// ParseBroadcastRequest accepted).
hub::NotificationRequest ParseBroadcastNotification(const nlohmann::json& notification,
                                                    std::int64_t broadcast_id);

struct CreatedBroadcast {
  bool created = false;      // false: the request's dedup_key named an existing broadcast
  nlohmann::json broadcast;  // as GET /v1/broadcasts/{id} shows it
};

// Creates, reads and cancels broadcasts; the FanOut does the work. Each call
// is one statement. Thread-safe; the pool (and `templates`, which may be
// null) must outlive the service.
class BroadcastService {
 public:
  explicit BroadcastService(db::Pool& pool, const templates::TemplateLookup* templates = nullptr)
      : pool_(pool), templates_(templates) {}

  // Stores the broadcast as running and wakes the fan-out loops (NOTIFY
  // chopar_broadcasts). A repeated request dedup_key returns the existing
  // broadcast (created false). Throws core::RequestError kNotFound for an
  // unknown topic, kInvalidField "notification.title" when neither the
  // request nor the type's template gives a title.
  CreatedBroadcast Create(const BroadcastRequest& request);
  // {"id", "topic", "audience", "status", "recipients", "created",
  // "dedup_key", "created_at", "finished_at"}. kNotFound when unknown.
  nlohmann::json Get(std::int64_t id);
  // Stops a running broadcast (a batch in progress commits first) and leaves
  // the queued deliveries of the recipients walked so far to be canceled by
  // the fan-out loops, in batches (FanOut); a finished one stays as it is.
  // Returns the broadcast. kNotFound when unknown.
  nlohmann::json Cancel(std::int64_t id);

 private:
  db::Pool& pool_;
  const templates::TemplateLookup* templates_;
};

}  // namespace chopar::broadcast
