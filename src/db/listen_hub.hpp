#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/backoff.hpp"
#include "db/connection.hpp"
#include "db/listener.hpp"

namespace chopar::db {

// One LISTEN connection shared by every subscriber of a process that
// listens on the same database (the same conninfo), whatever the channel.
//
// Why one: on every NOTIFY PostgreSQL signals each listening session of the
// database, whichever channels it listens on, and each wakes up to read the
// queue. A session per background loop made each notification's commit wake
// half a dozen backends that had nothing to do (docs/BENCHMARKS.md, "BEGIN
// with the first statements").
//
// A subscriber names its channel and two callbacks, as db::Listener's:
// `on_listening` after every LISTEN that covers it (the first, and after
// every reconnection: anything sent while nobody listened is then looked for
// by the owner), `on_notifications` with the payloads of its channel in the
// order sent. Callbacks run on the hub's thread, one at a time; a slow one
// delays the others. They must not subscribe or cancel a subscription.
//
// A new subscriber's channel is LISTENed within about `kStopCheck` (the
// thread looks for new channels between its waits). A lost connection is
// logged and reopened as db::Listener's is (db::KeepConnected); an
// exception from a callback is handled like a lost connection. Every member
// function is thread-safe.
class ListenHub : public std::enable_shared_from_this<ListenHub> {
  struct Key {};  // only the hub makes subscriptions

 public:
  using OnListening = std::function<void()>;
  using OnNotifications = std::function<void(const std::vector<Notification>&)>;

  // How often the thread looks for new channels and for its stop.
  static constexpr std::chrono::milliseconds kStopCheck{100};

  // A subscription: its callbacks run until Cancel() or its destruction.
  class Subscription {
   public:
    Subscription(Key, std::shared_ptr<ListenHub> hub, std::uint64_t id,
                 std::shared_ptr<std::atomic<std::uint64_t>> connections)
        : hub_(std::move(hub)), id_(id), connections_(std::move(connections)) {}
    ~Subscription() { Cancel(); }
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    // After it returns no callback of this subscription runs (one in
    // progress is waited for). Idempotent; not from a callback.
    void Cancel();
    // How many LISTENs covered this subscription, counted after its
    // `on_listening` returned.
    [[nodiscard]] std::uint64_t connections() const { return connections_->load(); }

   private:
    std::shared_ptr<ListenHub> hub_;
    std::uint64_t id_;
    std::shared_ptr<std::atomic<std::uint64_t>> connections_;
    std::once_flag cancelled_;
  };

  // The hub of `conninfo` for this process: made on first use, shared by
  // every caller while any subscription of it lives.
  static std::shared_ptr<ListenHub> Shared(const std::string& conninfo);

  explicit ListenHub(std::string conninfo,
                     core::Random& random = core::ThreadLocalRandom::Instance());
  ~ListenHub();  // stops and joins the thread (about kStopCheck)
  ListenHub(const ListenHub&) = delete;
  ListenHub& operator=(const ListenHub&) = delete;

  // Subscribes to `channel` (see db/notify_channels.hpp); starts the
  // thread on the first subscription. The hub must be owned by a
  // shared_ptr (the subscription keeps it alive).
  std::unique_ptr<Subscription> Subscribe(std::string channel, OnListening on_listening,
                                          OnNotifications on_notifications);

 private:
  struct Subscriber {
    std::string channel;
    OnListening on_listening;
    OnNotifications on_notifications;
    std::shared_ptr<std::atomic<std::uint64_t>> connections;
    std::uint64_t told_on_connection = 0;  // which connection's LISTEN it was told of
  };

  void Run();
  // LISTENs the channels of subscribers not yet told of this connection,
  // then tells them (on_listening).
  void ListenForNew(Connection& conn, std::uint64_t connection, std::set<std::string>& listening);
  void Dispatch(const std::vector<Notification>& notifications);
  void Unsubscribe(std::uint64_t id);
  void Pause(std::chrono::milliseconds delay);

  const std::string conninfo_;
  core::Random& random_;
  const core::BackoffPolicy reconnect_backoff_{std::chrono::milliseconds(100),
                                               std::chrono::milliseconds(5000)};

  std::mutex mutex_;  // guards subscribers_, next_id_, started_; orders stopping_
  std::map<std::uint64_t, Subscriber> subscribers_;
  std::uint64_t next_id_ = 1;
  bool started_ = false;
  std::condition_variable stop_cv_;
  std::atomic<bool> stopping_{false};
  // Held by the thread while it runs callbacks: Unsubscribe takes it to
  // wait for one in progress.
  std::mutex callbacks_mutex_;
  std::thread thread_;
};

}  // namespace chopar::db
