#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/clock.hpp"
#include "db/result.hpp"

namespace chopar::broadcast {

// What the walk after a cancel has stopped of a broadcast so far.
struct StoppedCounts {
  std::int64_t deliveries = 0;    // queued deliveries, now canceled
  std::int64_t delayed = 0;       // delayed notifications, now canceled
  std::int64_t digest_items = 0;  // items dropped from their open digest windows
  bool operator==(const StoppedCounts&) const = default;
};

// A broadcast as stored (docs/api.md "Broadcasts"; http::BroadcastView is
// its JSON). A value.
struct Broadcast {
  std::int64_t id = 0;
  std::optional<std::string> topic;     // none: "audience": "all"
  std::string audience;                 // "topic" or "all"
  std::optional<nlohmann::json> where;  // the audience's filter on users' data
  std::string status;                   // running, done, canceled
  std::int64_t recipients = 0;          // walked so far
  std::int64_t created = 0;             // notifications created so far
  std::optional<std::string> dedup_key;
  core::TimePoint created_at;
  std::optional<core::TimePoint> finished_at;
  StoppedCounts stopped;
  bool stopping = false;  // the walk after a cancel goes on
  bool operator==(const Broadcast&) const = default;
};

// The broadcast of row `row` of queries/get_broadcast.sql.
Broadcast ReadBroadcast(const db::Result& rows, int row);

}  // namespace chopar::broadcast
