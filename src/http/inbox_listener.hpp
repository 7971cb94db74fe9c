#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "http/stream_hub.hpp"

namespace chopar::http {

// A chopar_inbox NOTIFY payload: "*" (everyone) or comma-separated user ids.
struct InboxWake {
  bool all = false;
  std::vector<std::int64_t> user_ids;
};
// Pure. Pieces that are not positive integers are ignored; an empty payload
// wakes nobody.
InboxWake ParseInboxPayload(std::string_view payload);

// The one LISTEN connection of the process: a dedicated db::Connection on its
// own thread doing LISTEN chopar_inbox and fanning wake-ups out to the
// StreamHub, so idle streams cost no thread and no pooled connection.
//
// After every (re)connection it wakes all streams: notifications committed
// while it was not listening are then fetched too, so nothing is missed.
// A connection that breaks after listening for longer than `retry_delay` is
// re-opened at once; failures to connect are retried every `retry_delay`
// until Stop().
class InboxListener {
 public:
  struct Options {
    // How often the thread checks for Stop() while waiting for NOTIFYs.
    std::chrono::milliseconds poll_interval{200};
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
  [[nodiscard]] std::uint64_t connections() const { return connections_.load(); }

 private:
  void Run();
  // Waits up to `delay` unless Stop() comes first; false when stopping.
  bool WaitBeforeRetry(std::chrono::milliseconds delay);

  const std::string conninfo_;
  StreamHub& hub_;
  const Options options_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> connections_{0};
};

}  // namespace chopar::http
