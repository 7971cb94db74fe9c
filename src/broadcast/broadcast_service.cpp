#include "broadcast/broadcast_service.hpp"

#include "broadcast/queries.hpp"
#include "broadcast/stop_walk.hpp"
#include "broadcast/topic_service.hpp"
#include "core/request_error.hpp"
#include "hub/stored_request.hpp"
#include "hub/validation.hpp"

namespace chopar::broadcast {
namespace {

core::RequestError BroadcastNotFound(std::int64_t id) {
  return core::NotFound("broadcast " + std::to_string(id) + " not found");
}

// Any valid user id: the notification is checked as POST /v1/notifications
// checks a body, whose user_id is required.
constexpr std::int64_t kPlaceholderUser = 1;

// The notification of a POST /v1/broadcasts, checked as POST
// /v1/notifications checks its body (fields named as there).
hub::NotificationRequest ParseEachNotification(const nlohmann::json& notification) {
  nlohmann::json body = notification;
  body["user_id"] = kPlaceholderUser;
  hub::NotificationRequest request = hub::ParseNotificationRequest(body);
  // A broadcast reaches whoever the topic holds, members of a tenant or
  // not: a broadcast is in no tenant.
  if (request.tenant) {
    throw core::InvalidField("notification.tenant",
                             "a broadcast's notification is in no tenant; leave tenant out");
  }
  request.user_id = 0;
  return request;
}

}  // namespace

hub::NotificationRequest RecipientRequest(int version, const nlohmann::json& stored,
                                          std::int64_t broadcast_id) {
  hub::NotificationRequest request = hub::DecodeStoredRequest(version, stored);
  request.user_id = 0;
  request.dedup_key = BroadcastDedupKey(broadcast_id);
  return request;
}

std::string BroadcastDedupKey(std::int64_t broadcast_id) {
  return "broadcast:" + std::to_string(broadcast_id);
}

BroadcastRequest ParseBroadcastRequest(const nlohmann::json& body) {
  hub::RequireObject(body);
  for (const auto& [name, value] : body.items()) {
    if (name != "topic" && name != "audience" && name != "notification" && name != "dedup_key" &&
        name != "where")
      throw core::InvalidField(name, "unknown field " + name);
  }
  BroadcastRequest request;
  request.topic = hub::OptionalString(body, "topic", 1, 200);
  const auto audience = hub::OptionalString(body, "audience", 1, 20);
  if (audience && *audience != "all")
    throw core::InvalidField("audience", "audience must be \"all\" (or give a topic)");
  if (request.topic.has_value() == audience.has_value())
    throw core::InvalidField("topic", "give either topic or \"audience\": \"all\"");
  if (request.topic) {
    if (!IsValidTopicKey(*request.topic))
      throw core::InvalidField("topic", "topic is not a valid topic key");
  }
  request.dedup_key = hub::OptionalString(body, "dedup_key", 1, 200);
  if (const auto where = body.find("where"); where != body.end() && !where->is_null()) {
    if (!where->is_object()) {
      throw core::InvalidField("where", "where must be a JSON object matched against users' data");
    }
    hub::RequireNoNul(*where, "where");
    if (where->dump().size() > kMaxBroadcastWhereBytes) {
      throw core::InvalidField(
          "where",
          "where must be at most " + std::to_string(kMaxBroadcastWhereBytes) + " bytes of JSON");
    }
    request.where = *where;
  }

  const auto it = body.find("notification");
  if (it == body.end() || !it->is_object())
    throw core::InvalidField("notification", "notification must be a JSON object");
  for (const char* set_here : {"user_id", "dedup_key"}) {
    if (it->contains(set_here)) {
      throw core::InvalidField(
          std::string("notification.") + set_here,
          std::string("notification.") + set_here + " is set by the broadcast for each recipient");
    }
  }
  try {
    request.notification = ParseEachNotification(*it);
  } catch (const core::RequestError& e) {
    throw core::PrefixError(e, "notification.", "notification");
  }
  return request;
}

CreatedBroadcast BroadcastService::Create(const BroadcastRequest& request,
                                          const std::optional<std::string>& confined) {
  hub::NotificationRequest each = request.notification;
  if (confined && !request.topic) {
    throw core::Forbidden("a key confined to tenant " + *confined +
                          " broadcasts to its tenant's topics only");
  }
  if (request.topic) {
    const auto topic = pool_.Acquire()->Exec(queries::kTopicTenant, *request.topic);
    if (topic.Empty() || (confined && topic.OptString(0, "tenant") != confined))
      throw core::NotFound("topic " + *request.topic + " not found");
    each.tenant = topic.OptString(0, "tenant");
  }
  // Refused here rather than once per recipient by the fan-out.
  if (each.title.empty() &&
      (templates_ == nullptr || (templates_->FindFor(each.type, each.tenant) == nullptr &&
                                 templates_->FindFresh(each.type) == nullptr))) {
    throw core::InvalidField("notification.title", "notification.title is required: type " +
                                                       each.type + " has no template");
  }
  const auto row = pool_.Acquire()->Exec(
      queries::kInsertBroadcast, request.topic, hub::EncodeStoredRequest(each).dump(),
      hub::StoredRequestVersionOf(each), request.dedup_key,
      request.where ? std::optional(request.where->dump()) : std::nullopt);
  if (!row.Bool(0, "topic_exists")) throw core::NotFound("topic " + *request.topic + " not found");
  CreatedBroadcast result;
  result.created = row.Bool(0, "created");
  result.broadcast = Get(row.Int(0, "id"));
  return result;
}

Broadcast BroadcastService::Get(std::int64_t id) {
  const auto row = pool_.Acquire()->Exec(queries::kGetBroadcast, id);
  if (row.Empty()) throw BroadcastNotFound(id);
  return ReadBroadcast(row, 0);
}

Broadcast BroadcastService::Cancel(std::int64_t id) {
  auto tx = pool_.Begin("cancel_broadcast");
  const auto canceled = tx.Exec(queries::kCancelBroadcast, id);
  const auto cursor = canceled.Empty() ? std::nullopt : canceled.OptInt(0, "cancel_cursor");
  // No lease: whatever is left is for any fan-out loop, woken at COMMIT.
  if (cursor) (void)StopNextBatch(tx, id, *cursor, settings_.batch, std::nullopt);
  tx.Commit();
  return Get(id);
}

}  // namespace chopar::broadcast
