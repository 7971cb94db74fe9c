#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

namespace chopar::http {

// Something that can be told "there may be news for you" from any thread.
class Wakeable {
 public:
  virtual ~Wakeable() = default;
  // Must not block. Called without the hub's lock held.
  virtual void Wake() = 0;
  // A change of the state of the user's inbox items (the data of an SSE
  // `state` event, hub::InboxStateWakes): to be sent, and a wake-up. Must
  // not block; called without the hub's lock held. By default only wakes.
  virtual void Deliver(const std::shared_ptr<const nlohmann::json>& /*state*/) { Wake(); }
};

// The open Server-Sent Events streams of this process by user, so one LISTEN
// connection can fan wake-ups out to them. Holds weak references only: a
// stream that is gone is skipped (and forgotten). Thread-safe.
class StreamHub {
 public:
  // Registers `stream` (only a weak reference is kept).
  void Add(std::int64_t user_id, const std::shared_ptr<Wakeable>& stream);
  // Registers `stream` unless that would make more than `max_total` streams
  // in all or `max_per_user` for this user; false (nothing registered) then.
  bool TryAdd(std::int64_t user_id, const std::shared_ptr<Wakeable>& stream, std::size_t max_total,
              std::size_t max_per_user);
  // Removes `stream` from the user's list; a no-op if it is not there.
  void Remove(std::int64_t user_id, const Wakeable* stream);

  // Wakes every live stream of these users.
  void WakeUsers(const std::vector<std::int64_t>& user_ids);
  // Delivers `state` to every live stream of the user (Wakeable::Deliver).
  void DeliverState(std::int64_t user_id, const std::shared_ptr<const nlohmann::json>& state);
  // Wakes every live stream of the users low..high (inclusive): a large
  // batch, such as a broadcast's, names its range of user ids.
  void WakeRange(std::int64_t low, std::int64_t high);
  // Wakes every live stream (a NOTIFY with "*", or the listener reconnected
  // and may have missed notifications).
  void WakeAll();

  // Streams registered now (live or not yet forgotten).
  [[nodiscard]] std::size_t size() const;

 private:
  // The live streams of these users (the dead ones forgotten), to be woken
  // after the lock is released.
  std::vector<std::shared_ptr<Wakeable>> LiveStreams(const std::vector<std::int64_t>& user_ids);

  mutable std::mutex mutex_;
  std::size_t total_ = 0;  // entries in streams_
  struct Entry {
    const Wakeable* address;  // identifies the stream even after it expired
    std::weak_ptr<Wakeable> stream;
  };
  std::unordered_map<std::int64_t, std::vector<Entry>> streams_;
};

}  // namespace chopar::http
