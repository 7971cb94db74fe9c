#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "db/pool.hpp"

namespace chopar::console {

// Which sink messages GET /v1/sink/messages lists.
struct SinkFilter {
  std::optional<std::string> channel{};  // a registered channel's name
  std::optional<std::int64_t> user_id{};
  int limit = 50;                       // 1..200
  std::optional<std::string> cursor{};  // next_cursor of the previous page
};

// What the sink channels "sent", newest first: {"items": [{"id",
// "delivery_id", "notification_id", "channel", "user_id", "address",
// "title", "body", "html", "created_at"}], "next_cursor"}, each message as
// the user would have received it (see channels::SinkChannel). Throws
// core::RequestError 400 invalid_field for a bad channel, limit or cursor, and
// db errors for a database that does not answer. Thread-safe.
nlohmann::json ListSinkMessages(db::Pool& pool, const SinkFilter& filter);

}  // namespace chopar::console
