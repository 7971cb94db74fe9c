#include "broadcast/broadcast.hpp"
#include "core/time_format.hpp"

namespace chopar::broadcast {

Broadcast ReadBroadcast(const db::Result& rows, int row) {
  Broadcast b;
  b.id = rows.Int(row, "id");
  b.topic = rows.OptString(row, "topic");
  b.audience = rows.String(row, "audience");
  b.status = rows.String(row, "status");
  b.recipients = rows.Int(row, "recipients");
  b.created = rows.Int(row, "created");
  b.dedup_key = rows.OptString(row, "dedup_key");
  b.created_at = core::ParsePgTimestamp(rows.Text(row, "created_at"));
  if (!rows.IsNull(row, "finished_at")) {
    b.finished_at = core::ParsePgTimestamp(rows.Text(row, "finished_at"));
  }
  b.stopped = {rows.Int(row, "stopped_deliveries"), rows.Int(row, "stopped_delayed"),
               rows.Int(row, "stopped_digest_items")};
  b.stopping = rows.Bool(row, "stopping");
  return b;
}

}  // namespace chopar::broadcast
