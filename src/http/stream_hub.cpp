#include "http/stream_hub.hpp"

#include <algorithm>
#include <limits>

namespace chopar::http {
namespace {

// Locks the live streams of one list and forgets the dead ones.
// Returns how many were forgotten.
template <typename Entry>
std::size_t Collect(std::vector<Entry>& list, std::vector<std::shared_ptr<Wakeable>>& out) {
  return std::erase_if(list, [&out](const Entry& entry) {
    auto stream = entry.stream.lock();
    if (!stream) return true;
    out.push_back(std::move(stream));
    return false;
  });
}

}  // namespace

void StreamHub::Add(std::int64_t user_id, const std::shared_ptr<Wakeable>& stream) {
  (void)TryAdd(user_id, stream, SIZE_MAX, SIZE_MAX);
}

bool StreamHub::TryAdd(std::int64_t user_id, const std::shared_ptr<Wakeable>& stream,
                       std::size_t max_total, std::size_t max_per_user) {
  std::lock_guard lock(mutex_);
  if (total_ >= max_total) return false;
  auto& list = streams_[user_id];
  if (list.size() >= max_per_user) {
    if (list.empty()) streams_.erase(user_id);
    return false;
  }
  list.push_back({stream.get(), stream});
  ++total_;
  return true;
}

void StreamHub::Remove(std::int64_t user_id, const Wakeable* stream) {
  std::lock_guard lock(mutex_);
  const auto it = streams_.find(user_id);
  if (it == streams_.end()) return;
  // By address, not by locking: the stream may be in its destructor.
  total_ -=
      std::erase_if(it->second, [stream](const Entry& entry) { return entry.address == stream; });
  if (it->second.empty()) streams_.erase(it);
}

std::vector<std::shared_ptr<Wakeable>> StreamHub::LiveStreams(
    const std::vector<std::int64_t>& user_ids) {
  std::vector<std::shared_ptr<Wakeable>> live;
  std::lock_guard lock(mutex_);
  for (const std::int64_t user_id : user_ids) {
    const auto it = streams_.find(user_id);
    if (it == streams_.end()) continue;
    total_ -= Collect(it->second, live);
    if (it->second.empty()) streams_.erase(it);
  }
  return live;
}

void StreamHub::WakeUsers(const std::vector<std::int64_t>& user_ids) {
  // Woken outside the lock: dropping the last reference to a stream runs its
  // destructor, which calls Remove().
  for (const auto& stream : LiveStreams(user_ids)) stream->Wake();
}

void StreamHub::DeliverState(std::int64_t user_id,
                             const std::shared_ptr<const nlohmann::json>& state) {
  for (const auto& stream : LiveStreams({user_id})) stream->Deliver(state);
}

void StreamHub::WakeRange(std::int64_t low, std::int64_t high) {
  std::vector<std::shared_ptr<Wakeable>> woken;
  {
    std::lock_guard lock(mutex_);
    for (auto it = streams_.begin(); it != streams_.end();) {
      if (it->first < low || it->first > high) {
        ++it;
        continue;
      }
      total_ -= Collect(it->second, woken);
      it = it->second.empty() ? streams_.erase(it) : std::next(it);
    }
  }
  for (const auto& stream : woken) stream->Wake();
}

void StreamHub::WakeAll() {
  WakeRange(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
}

std::size_t StreamHub::size() const {
  std::lock_guard lock(mutex_);
  return total_;
}

}  // namespace chopar::http
