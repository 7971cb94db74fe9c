#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "broadcast/broadcast.hpp"
#include "broadcast/settings.hpp"
#include "db/pool.hpp"
#include "hub/notify_service.hpp"
#include "templates/template_store.hpp"

namespace chopar::broadcast {

// A validated POST /v1/broadcasts (docs/api.md "Topics and broadcasts").
struct BroadcastRequest {
  std::optional<std::string> topic;  // nullopt: "audience": "all"
  // The notification each recipient gets (the fields of POST
  // /v1/notifications; user_id 0 and no dedup_key: the fan-out sets them):
  // stored in hub's stored-request form, which each fan-out batch decodes
  // with RecipientRequest.
  hub::NotificationRequest notification;
  std::optional<std::string> dedup_key;  // the request's own, 1..200 characters
  // "where": only the users of the audience whose data contains this object
  // (users.data @> where); nullopt: all of them.
  std::optional<nlohmann::json> where;
};

// The largest "where" of a broadcast, in bytes of its compact JSON text.
inline constexpr std::size_t kMaxBroadcastWhereBytes = 4096;

// Parses and validates the body. Exactly one of "topic" and "audience":
// "all"; "notification" is checked as POST /v1/notifications checks its
// body (fields named "notification.…"), and may not carry user_id or
// dedup_key; "where", if given and not null, is a JSON object of at most
// kMaxBroadcastWhereBytes. Throws core::RequestError kInvalidJson /
// kInvalidField.
BroadcastRequest ParseBroadcastRequest(const nlohmann::json& body);

// "broadcast:<broadcast_id>": the dedup key of each recipient's notification.
std::string BroadcastDedupKey(std::int64_t broadcast_id);

// The stored notification of broadcast `broadcast_id` (its form of
// `version`, hub/stored_request.hpp) as the request of one recipient
// (user_id 0, to be set) with dedup_key "broadcast:<broadcast_id>". Throws
// hub::StoredRequestError for a form it cannot decode.
hub::NotificationRequest RecipientRequest(int version, const nlohmann::json& stored,
                                          std::int64_t broadcast_id);

struct CreatedBroadcast {
  bool created = false;  // false: the request's dedup_key named an existing broadcast
  Broadcast broadcast;
};

// Creates, reads and cancels broadcasts; the FanOut does the work. Each call
// is one transaction. Thread-safe; the pool (and `templates`, which may be
// null) must outlive the service. `settings.batch` is the size of the
// cancel walk's batch run by Cancel itself (the FanOuts run the others).
class BroadcastService {
 public:
  explicit BroadcastService(db::Pool& pool, const templates::TemplateLookup* templates = nullptr,
                            FanOutSettings settings = {})
      : pool_(pool), templates_(templates), settings_(settings) {}

  // Stores the broadcast as running and wakes the fan-out loops (NOTIFY
  // chopar_broadcasts). A repeated request dedup_key returns the existing
  // broadcast (created false). Throws core::RequestError kNotFound for an
  // unknown topic, kInvalidField "notification.title" when neither the
  // request nor the type's template gives a title. A broadcast to a
  // tenant's topic is that tenant's: its notifications are in the tenant
  // (hub::NotificationRequest::tenant). `confined`: the caller's key is
  // confined to that tenant; it may broadcast to that tenant's topics only
  // (kForbidden for "audience": "all", kNotFound for another topic).
  CreatedBroadcast Create(const BroadcastRequest& request,
                          const std::optional<std::string>& confined = std::nullopt);
  // kNotFound when unknown.
  Broadcast Get(std::int64_t id);
  // Cancels a running or done broadcast (a fan-out batch in progress commits
  // first) and, in the same transaction, runs the first batch of the walk
  // that stops what it has not sent yet (StopNextBatch: up to settings.batch
  // recipients, from the last one fanned out down); the fan-out loops,
  // woken at COMMIT, walk the rest. A canceled broadcast is left as it is.
  // Returns the broadcast, with what the walk has stopped so far. kNotFound
  // when unknown; throws db::DbError / db::PoolTimeout (nothing changed).
  Broadcast Cancel(std::int64_t id);

 private:
  db::Pool& pool_;
  const templates::TemplateLookup* templates_;
  const FanOutSettings settings_;
};

}  // namespace chopar::broadcast
