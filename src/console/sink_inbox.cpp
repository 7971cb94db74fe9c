#include "console/sink_inbox.hpp"

#include <limits>

#include "console/page.hpp"
#include "console/queries.hpp"
#include "core/channel_kind.hpp"
#include "core/request_error.hpp"

namespace chopar::console {

nlohmann::json ListSinkMessages(db::Pool& pool, const SinkFilter& filter) {
  const int limit = CheckLimit(filter.limit, 200);
  if (filter.channel && !core::ParseChannel(*filter.channel)) {
    throw core::InvalidField("channel", "channel must be " + core::ChannelNamesText());
  }
  const std::int64_t before =
      filter.cursor ? DecodeIdCursor(*filter.cursor) : std::numeric_limits<std::int64_t>::max();
  auto conn = pool.Acquire();
  const auto rows =
      conn->Exec(queries::kListSinkMessages, filter.channel, filter.user_id, limit + 1, before);
  return PageOf(rows, limit, "id");
}

}  // namespace chopar::console
