#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace chopar::net {

// At most `capacity` requests to one receiver at once, counted across every
// thread and every HttpClient::PerformAll call that shares the limit: a
// receiver that answers slowly then slows its senders down, instead of
// seeing a flood of requests that time out while they queue (and are sent
// again). A slot is held from the moment a request starts until it ends.
//
// Thread-safe. Not copyable or movable (callers share it by reference); it
// must outlive every call that uses it.
class InFlightLimit {
 public:
  // Throws std::invalid_argument for a capacity of 0.
  explicit InFlightLimit(std::size_t capacity);
  InFlightLimit(const InFlightLimit&) = delete;
  InFlightLimit& operator=(const InFlightLimit&) = delete;

  // Takes a slot when one is free: true. False, taking nothing, when all
  // `capacity` are held.
  [[nodiscard]] bool TryAcquire();
  // Gives back a slot that TryAcquire took, and wakes a waiter.
  void Release();
  // Waits until a slot is free or `timeout` has passed; returns whether one
  // is free. Takes nothing: another thread may take the slot first, so the
  // caller still calls TryAcquire (and waits again when it fails).
  bool WaitForFree(std::chrono::milliseconds timeout);

  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  // Slots held now (for tests and metrics; stale as soon as it returns).
  [[nodiscard]] std::size_t in_use() const;

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::size_t in_use_ = 0;
};

}  // namespace chopar::net
