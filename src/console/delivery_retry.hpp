#pragma once

#include <cstdint>

#include "db/pool.hpp"
#include "hub/notification.hpp"

namespace chopar::console {

// POST /v1/deliveries/{id}/retry: an operator sends a delivery again. A
// delivery that is failed, skipped or queued is queued again, due now, with
// its attempts reset (its last_error stays until the next attempt replaces
// it), and the workers are woken. Returns the delivery as it is now. Throws core::RequestError 404
// not_found for an unknown id and 409 conflict for a delivery that is sent or being sent (nothing
// changes then). One short transaction; thread-safe.
hub::Delivery RetryDelivery(db::Pool& pool, std::int64_t delivery_id);

}  // namespace chopar::console
