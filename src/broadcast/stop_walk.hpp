#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "db/pool.hpp"

namespace chopar::broadcast {

// What one batch of a canceled broadcast's stop walk did.
struct StopBatch {
  int recipients = 0;               // recipients walked
  std::int64_t delayed = 0;         // delayed notifications deleted
  std::int64_t deliveries = 0;      // deliveries canceled
  std::int64_t digest_items = 0;    // items taken out of open digest windows
  bool finished = false;            // no recipient is left: the walk is over
};

// Who holds the broadcast between two batches of the walk.
struct StopLease {
  std::chrono::milliseconds duration;
  std::string owner;
};

// One batch of the walk that stops what canceled broadcast `broadcast_id`
// has not sent yet (docs/api.md "Topics and broadcasts"), in `tx`, which
// holds the broadcast's row: the `batch` highest recipients at or below
// `cancel_cursor` that hold its dedup key lose their delayed notifications
// (queries/stop_delayed_batch.sql), then their open digest items and their
// deliveries not handed to a provider yet (queries/stop_deliveries_batch.sql,
// a second statement so a delayed notification released meanwhile is seen
// with its deliveries). Moves the broadcast's cancel_cursor down and adds
// the counts to it; `lease` holds it for the next batch (nullopt: no lease,
// any fan-out loop may continue). Nothing is committed here. Throws
// db::DbError (the transaction is then to be rolled back).
StopBatch StopNextBatch(db::Transaction& tx, std::int64_t broadcast_id, std::int64_t cancel_cursor,
                        int batch, const std::optional<StopLease>& lease);

}  // namespace chopar::broadcast
