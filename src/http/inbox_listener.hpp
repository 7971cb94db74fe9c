#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/listener.hpp"
#include "http/stream_hub.hpp"

namespace chopar::http {

// A chopar_inbox NOTIFY payload: "*" (everyone), or comma-separated user
// ids and inclusive ranges of them ("1,7,100-2099").
struct InboxWake {
  bool all = false;
  std::vector<std::int64_t> user_ids;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // {low, high}, low <= high
};
// Pure. Pieces that are neither positive integers nor "low-high" with
// 0 < low <= high are ignored; an empty payload wakes nobody.
InboxWake ParseInboxPayload(std::string_view payload);

// A chopar_inbox NOTIFY payload that starts with "{": a change of the state
// of a user's inbox items, {"user_id": …, "state": {…}} (hub::InboxStateWakes).
struct InboxStateWake {
  std::int64_t user_id = 0;
  std::shared_ptr<const nlohmann::json> state;  // the `state` event's data
};
// Pure. nullopt for a payload that is not such an object (a positive
// user_id, an object "state" with a string "change").
std::optional<InboxStateWake> ParseInboxStatePayload(std::string_view payload);

// The one LISTEN connection of the process: a db::Listener doing LISTEN
// db::kInboxChannel on its own thread and dedicated connection, fanning
// wake-ups and state changes out to the StreamHub, so idle streams cost no thread and no pooled
// connection.
//
// After every (re)connection it wakes all streams: notifications committed
// while it was not listening are then fetched too, so nothing is missed
// (state changes made meanwhile reach the streams as their counts only).
// A lost connection is re-opened with db::Listener's jittered backoff (from
// 100 ms up to `retry_delay`; at once, give or take the jitter, after a
// connection that had been listening for longer than `retry_delay`) until
// Stop().
class InboxListener {
 public:
  struct Options {
    // How often the thread checks for Stop() while waiting for NOTIFYs.
    std::chrono::milliseconds poll_interval{200};
    // The longest wait between two attempts to reconnect.
    std::chrono::milliseconds retry_delay{1000};
  };
  InboxListener(std::string conninfo, StreamHub& hub, Options options);
  InboxListener(const InboxListener&) = delete;
  InboxListener& operator=(const InboxListener&) = delete;
  ~InboxListener();  // Stop()

  // Starts the thread; returns at once (connecting happens on the thread).
  void Start();
  // Stops and joins the thread; idempotent.
  void Stop();

  // How many times LISTEN has succeeded (1 after the first connection),
  // counted after the wake-up that follows it.
  [[nodiscard]] std::uint64_t connections() const { return listener_.connections(); }

 private:
  void FanOut(const std::vector<db::Notification>& notifications);

  StreamHub& hub_;
  db::Listener listener_;
};

}  // namespace chopar::http
