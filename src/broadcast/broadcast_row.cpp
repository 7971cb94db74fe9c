#include "broadcast/broadcast.hpp"
#include "db/time_column.hpp"

namespace chopar::broadcast {

Broadcast ReadBroadcast(const db::Result& rows, int row) {
  Broadcast b;
  b.id = rows.Int(row, "id");
  b.topic = rows.OptString(row, "topic");
  b.audience = rows.String(row, "audience");
  if (!rows.IsNull(row, "audience_where"))
    b.where = nlohmann::json::parse(rows.Text(row, "audience_where"));
  b.status = rows.String(row, "status");
  b.recipients = rows.Int(row, "recipients");
  b.created = rows.Int(row, "created");
  b.dedup_key = rows.OptString(row, "dedup_key");
  b.created_at = db::TimeColumn(rows, row, "created_at");
  b.finished_at = db::OptTimeColumn(rows, row, "finished_at");
  b.stopped = {rows.Int(row, "stopped_deliveries"), rows.Int(row, "stopped_delayed"),
               rows.Int(row, "stopped_digest_items")};
  b.stopping = rows.Bool(row, "stopping");
  return b;
}

}  // namespace chopar::broadcast
