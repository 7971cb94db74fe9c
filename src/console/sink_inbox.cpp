#include "console/sink_inbox.hpp"

#include <limits>

#include "console/page.hpp"
#include "console/queries.hpp"
#include "core/channel_kind.hpp"
#include "core/request_error.hpp"
#include "db/time_column.hpp"

namespace chopar::console {
namespace {

SinkMessage ReadSinkMessage(const db::Result& rows, int row) {
  return {.id = rows.Int(row, "id"),
          .delivery_id = rows.Int(row, "delivery_id"),
          .notification_id = rows.OptInt(row, "notification_id"),
          .channel = rows.String(row, "channel"),
          .user_id = rows.Int(row, "user_id"),
          .address = rows.OptString(row, "address"),
          .title = rows.OptString(row, "subject"),
          .body = rows.OptString(row, "body"),
          .html = rows.OptString(row, "html"),
          .created_at = db::TimeColumn(rows, row, "created_at")};
}

}  // namespace

core::Page<SinkMessage> ListSinkMessages(db::Pool& pool, const SinkFilter& filter) {
  const int limit = CheckLimit(filter.limit, 200);
  if (filter.channel && !core::ParseChannel(*filter.channel)) {
    throw core::InvalidField("channel", "channel must be " + core::ChannelNamesText());
  }
  const std::int64_t before =
      filter.cursor ? DecodeIdCursor(*filter.cursor) : std::numeric_limits<std::int64_t>::max();
  auto conn = pool.Acquire();
  const auto rows =
      conn->Exec(queries::kListSinkMessages, filter.channel, filter.user_id, limit + 1, before);
  return PageOf(rows, limit, "id", ReadSinkMessage);
}

}  // namespace chopar::console
