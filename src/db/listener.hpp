#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/backoff.hpp"
#include "db/connection.hpp"

namespace chopar::db {

// How a Listener connects and reconnects; a value, set once at construction.
struct ListenerSettings {
  std::string conninfo;  // URL or key=value, as for Connection::Open
  std::string channel;   // the NOTIFY channel (see db/notify_channels.hpp)
  std::string name;      // names the listener in the log
  // How often the thread looks at Stop() while no notification arrives.
  std::chrono::milliseconds stop_check{100};
  // Waits between reconnection attempts (jittered, see core::BackoffDelay).
  core::BackoffPolicy reconnect_backoff{std::chrono::milliseconds(100),
                                        std::chrono::milliseconds(5000)};
};

// How a LISTEN thread keeps its connection (db::Listener, db::ListenHub):
// opens a connection to `conninfo` and hands it to `serve` with its number
// (1, then 2 after the first reconnection, ...) until `stopping` is set.
// When `serve` throws (a lost connection, a callback's exception) the
// failure is logged under `name` and the connection reopened after
// core::BackoffDelay(backoff, n): n counts the failures in a row, and starts
// again at 1 once a connection had been up for longer than the backoff's
// cap (a flapping server is not hammered). `pause` waits out a delay unless
// the owner stops first.
struct ReconnectingConnection {
  const std::string& conninfo;
  const std::string& name;
  const core::BackoffPolicy& backoff;
  core::Random& random;
  const std::atomic<bool>& stopping;
  std::function<void(std::chrono::milliseconds)> pause;
};
void KeepConnected(const ReconnectingConnection& how,
                   const std::function<void(Connection&, std::uint64_t)>& serve);

// One dedicated connection doing LISTEN on one channel, on its own thread,
// so that waiting for NOTIFYs holds no pooled connection.
//
// `on_listening` runs after every successful LISTEN (the first and every
// reconnection): anything sent while nobody listened is then looked for by
// the owner instead of waiting for its polling fallback. `on_notifications`
// runs for every batch of notifications received, with their payloads in
// the order sent. Both run on the listener's thread, one at a time.
//
// A lost connection (or a failure to connect) is logged and reopened after
// core::BackoffDelay(settings.reconnect_backoff, n): n counts the failures in
// a row, and starts again at 1 once a connection had been listening for
// longer than the backoff's cap. An exception from a callback is handled
// like a lost connection. Nothing ends the thread but Stop().
//
// The random source must outlive the Listener. Start() and Stop() may be
// called from any thread; connections() is lock-free.
class Listener {
 public:
  using OnListening = std::function<void()>;
  using OnNotifications = std::function<void(const std::vector<Notification>&)>;

  Listener(ListenerSettings settings, OnListening on_listening, OnNotifications on_notifications,
           core::Random& random = core::ThreadLocalRandom::Instance());
  ~Listener();  // Stop()
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Starts the thread and returns at once (connecting happens on it). Later
  // calls, and calls after Stop(), do nothing.
  void Start();
  // Stops and joins the thread: returns within about settings.stop_check
  // plus whatever a connection attempt in progress takes. Idempotent.
  void Stop();

  // How many times LISTEN has succeeded (1 after the first connection),
  // counted after `on_listening` returned: a caller that sees the count
  // knows that call is over.
  [[nodiscard]] std::uint64_t connections() const { return connections_.load(); }

 private:
  void Run();
  // Waits up to `delay` unless Stop() comes first.
  void Pause(std::chrono::milliseconds delay);

  const ListenerSettings settings_;
  const OnListening on_listening_;
  const OnNotifications on_notifications_;
  core::Random& random_;

  std::mutex mutex_;  // guards started_ and orders stopping_ with stop_cv_
  std::condition_variable stop_cv_;
  bool started_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> connections_{0};
  std::mutex join_mutex_;  // one caller at a time joins the thread
  std::thread thread_;
};

}  // namespace chopar::db
