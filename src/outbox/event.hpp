#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace chopar::outbox {

// One row of chopar.outbox as a relay claimed it.
struct Event {
  std::int64_t id = 0;   // the row's id: claim order
  std::string event_id;  // uuid: webhook-id, Nats-Msg-Id, the inbox key
  std::string type;
  std::optional<std::int64_t> user_id;
  std::string payload = "{}";  // JSON text, as stored
  core::TimePoint created_at;
  int attempts = 0;  // publish attempts before this one
  // Targets that had it already (a partial success of an earlier attempt).
  std::vector<std::string> delivered_to;
  // What every target sends (EventBody), built once per claim.
  std::string body;
};

// The JSON document of an event that webhooks POST and NATS messages carry
// (docs/api.md, "Outbox"): {"id": "<event id>", "type": "…", "user_id": n
// or null, "created_at": "<RFC 3339>", "payload": {…}}, compact, keys in
// that order. `payload` is inserted as it is (it is valid JSON text).
std::string EventBody(const Event& event);

// The members of PostgreSQL's text[] output ("{a,b}", "{}"); the target
// names it holds are plain tokens, never quoted.
std::vector<std::string> ParseTextArray(std::string_view text);

}  // namespace chopar::outbox
