#include "broadcast/stop_walk.hpp"

#include <vector>

#include "broadcast/broadcast_service.hpp"
#include "broadcast/queries.hpp"
#include "db/params.hpp"

namespace chopar::broadcast {

StopBatch StopNextBatch(db::Transaction& tx, std::int64_t broadcast_id, std::int64_t cancel_cursor,
                        int batch, const std::optional<StopLease>& lease) {
  const auto walked =
      tx.Exec(queries::kStopDelayedBatch, BroadcastDedupKey(broadcast_id), cancel_cursor, batch);
  StopBatch stopped;
  stopped.recipients = walked.Rows();
  stopped.finished = stopped.recipients < batch;
  std::vector<std::int64_t> notifications;
  notifications.reserve(static_cast<std::size_t>(walked.Rows()));
  for (int i = 0; i < walked.Rows(); ++i) notifications.push_back(walked.Int(i, "id"));
  if (!walked.Empty()) stopped.delayed = walked.Int(0, "delayed");
  const std::optional<std::int64_t> lowest =
      walked.Empty() ? std::nullopt : std::optional(walked.Int(walked.Rows() - 1, "user_id"));
  const auto row = tx.Exec(
      queries::kStopDeliveriesBatch, broadcast_id, db::ArrayLiteral(notifications), lowest, batch,
      stopped.delayed,
      lease ? std::optional(std::chrono::duration<double>(lease->duration).count()) : std::nullopt,
      lease ? std::optional(lease->owner) : std::nullopt);
  stopped.deliveries = row.Int(0, "canceled");
  stopped.digest_items = row.Int(0, "digest_items");
  return stopped;
}

}  // namespace chopar::broadcast
