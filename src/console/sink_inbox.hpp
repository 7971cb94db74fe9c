#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"

namespace chopar::console {

// Which sink messages GET /v1/sink/messages lists.
struct SinkFilter {
  std::optional<std::string> channel{};  // a registered channel's name
  std::optional<std::int64_t> user_id{};
  int limit = 50;                       // 1..200
  std::optional<std::string> cursor{};  // next_cursor of the previous page
};

// One message a sink channel "sent", as the user would have received it
// (see channels::SinkChannel); http::SinkMessageView is its JSON.
struct SinkMessage {
  std::int64_t id = 0;
  std::int64_t delivery_id = 0;
  // The delivery's notification; none once retention removed the delivery.
  std::optional<std::int64_t> notification_id;
  std::string channel;
  std::int64_t user_id = 0;
  std::optional<std::string> address;
  std::optional<std::string> title;  // the email's subject, the push's title
  std::optional<std::string> body;
  std::optional<std::string> html;
  core::TimePoint created_at;
};

// What the sink channels "sent", newest first. Throws core::RequestError
// 400 invalid_field for a bad channel, limit or cursor, and db errors for a
// database that does not answer. Thread-safe.
core::Page<SinkMessage> ListSinkMessages(db::Pool& pool, const SinkFilter& filter);

}  // namespace chopar::console
