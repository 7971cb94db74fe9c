#include "http/broadcast_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {

nlohmann::json BroadcastView(const broadcast::Broadcast& b) {
  return {{"id", b.id},
          {"topic", OrNull(b.topic)},
          {"audience", b.audience},
          {"where", b.where ? *b.where : nlohmann::json(nullptr)},
          {"status", b.status},
          {"recipients", b.recipients},
          {"created", b.created},
          {"dedup_key", OrNull(b.dedup_key)},
          {"created_at", TimeView(b.created_at)},
          {"finished_at", TimeView(b.finished_at)},
          {"stopped",
           {{"deliveries", b.stopped.deliveries},
            {"delayed", b.stopped.delayed},
            {"digest_items", b.stopped.digest_items}}},
          {"stopping", b.stopping}};
}

nlohmann::json TopicView(const broadcast::Topic& topic) {
  return {{"key", topic.key},
          {"name", topic.name},
          {"tenant", OrNull(topic.tenant)},
          {"created_at", TimeView(topic.created_at)},
          {"updated_at", TimeView(topic.updated_at)}};
}

nlohmann::json SubscriberView(const broadcast::Subscriber& subscriber) {
  return {{"user_id", subscriber.user_id}, {"created_at", TimeView(subscriber.created_at)}};
}

}  // namespace chopar::http
