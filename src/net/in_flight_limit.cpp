#include "net/in_flight_limit.hpp"

#include <stdexcept>

namespace chopar::net {

InFlightLimit::InFlightLimit(std::size_t capacity) : capacity_(capacity) {
  if (capacity == 0) throw std::invalid_argument("an in-flight limit needs at least one slot");
}

bool InFlightLimit::TryAcquire() {
  std::lock_guard lock(mutex_);
  if (in_use_ >= capacity_) return false;
  ++in_use_;
  return true;
}

void InFlightLimit::Release() {
  {
    std::lock_guard lock(mutex_);
    if (in_use_ > 0) --in_use_;
  }
  // All: a woken waiter only looks (WaitForFree takes nothing), so one
  // that loses the race must not leave the others asleep.
  freed_.notify_all();
}

bool InFlightLimit::WaitForFree(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return freed_.wait_for(lock, timeout, [this] { return in_use_ < capacity_; });
}

std::size_t InFlightLimit::in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

}  // namespace chopar::net
