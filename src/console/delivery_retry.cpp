#include "console/delivery_retry.hpp"

#include "console/queries.hpp"
#include "core/request_error.hpp"

namespace chopar::console {

hub::Delivery RetryDelivery(db::Pool& pool, std::int64_t delivery_id) {
  auto tx = pool.Begin("retry_delivery");
  // Locked first so the status checked is the status changed: a worker's
  // claim or record waits for this transaction, never interleaves with it.
  const auto current = tx.Exec(queries::kLockDelivery, delivery_id);
  if (current.Empty()) {
    throw core::NotFound("delivery " + std::to_string(delivery_id) + " does not exist");
  }
  const std::string status = current.String(0, "status");
  if (status == "sent" || status == "sending") {
    throw core::RequestError(core::ErrorCode::kConflict,
                             "delivery " + std::to_string(delivery_id) + " is " + status +
                                 "; only a delivery that is not sent can be retried");
  }
  tx.Defer(queries::kRequeueDelivery, delivery_id);
  tx.Defer(queries::kAuditDeliveryRetry, delivery_id, status);
  const auto delivery = tx.Exec(queries::kGetDelivery, delivery_id);
  tx.Commit();
  return hub::ReadDelivery(delivery, 0);
}

}  // namespace chopar::console
