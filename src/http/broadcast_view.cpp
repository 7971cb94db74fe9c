#include "http/broadcast_view.hpp"

#include "http/json_view.hpp"

namespace chopar::http {

nlohmann::json BroadcastView(const broadcast::Broadcast& b) {
  return {{"id", b.id},
          {"topic", OrNull(b.topic)},
          {"audience", b.audience},
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

}  // namespace chopar::http
