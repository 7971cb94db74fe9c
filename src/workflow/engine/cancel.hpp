#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/channel_kind.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"

namespace chopar::workflow::engine {

// POST /v1/notifications/cancel (docs/api.md "Workflows").
struct CancelRequest {
  std::string cancellation_key;
  std::optional<std::int64_t> user_id;  // nullopt: every user's
};

// Parses {"cancellation_key": "task:1:due", "user_id": 1}. Throws
// core::RequestError (kInvalidJson; kInvalidField naming the field: a
// missing key or one over 255 characters, a user id that is not 1..2^63-1).
CancelRequest ParseCancelRequest(const nlohmann::json& body);

// Cancels by cancellation key. In one transaction: the delayed
// notifications with the key are deleted (they never appear), their
// workflow runs stop (the steps left are never done), then the queued
// deliveries of the notifications with the key end `canceled`
// (last_error `canceled`) — in that order, so a delayed notification being
// released at the same moment is either deleted or, once its release has
// committed, has its deliveries canceled. `sending` deliveries are in
// flight and finish. Counts chopar_deliveries_total{channel,
// status="canceled"} after the commit. The pool and registry must outlive
// it; thread-safe.
class Canceler {
 public:
  Canceler(db::Pool& pool, core::MetricsRegistry& metrics);

  // How many deliveries and delayed notifications were canceled. Throws
  // db::DbError / db::PoolTimeout (nothing canceled).
  int Cancel(const CancelRequest& request);

 private:
  db::Pool& pool_;
  core::PerChannel<core::Counter*> canceled_{};
};

}  // namespace chopar::workflow::engine
