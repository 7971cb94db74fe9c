#pragma once

// What the outbox tests share (header only; not part of the library).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/backoff.hpp"
#include "core/metrics.hpp"
#include "db/pool.hpp"
#include "outbox/emit.hpp"
#include "outbox/relay.hpp"
#include "outbox/target.hpp"
#include "testing/test_database.hpp"

namespace chopar::outbox::testing {

// A target that records what it was given and answers as the test says
// (default: ok). Thread-safe.
class RecordingTarget final : public Target {
 public:
  using Answer = std::function<PublishOutcome(const Event&)>;

  explicit RecordingTarget(Answer answer = {}, std::chrono::milliseconds latency = {})
      : answer_(std::move(answer)), latency_(latency) {}

  std::vector<PublishOutcome> Publish(std::span<const Event* const> events) override {
    // A publish that takes time, as a broker's round trip does.
    if (latency_.count() > 0) std::this_thread::sleep_for(latency_);
    std::vector<PublishOutcome> outcomes;
    std::lock_guard lock(mutex_);
    ++calls_;
    for (const Event* event : events) {
      outcomes.push_back(answer_ ? answer_(*event) : PublishOutcome::Ok());
      if (outcomes.back().ok) published_.push_back(event->event_id);
      attempted_.push_back(event->event_id);
    }
    return outcomes;
  }
  void SetAnswer(Answer answer) {
    std::lock_guard lock(mutex_);
    answer_ = std::move(answer);
  }

  // Event ids it took, in order (with repeats), and every id it was given.
  [[nodiscard]] std::vector<std::string> published() const {
    std::lock_guard lock(mutex_);
    return published_;
  }
  [[nodiscard]] std::vector<std::string> attempted() const {
    std::lock_guard lock(mutex_);
    return attempted_;
  }
  [[nodiscard]] int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  mutable std::mutex mutex_;
  Answer answer_;
  std::chrono::milliseconds latency_;
  std::vector<std::string> published_;
  std::vector<std::string> attempted_;
  int calls_ = 0;
};

// A random source that always draws the top of the range: backoff delays
// are then their ceilings, so a test knows them.
class TopRandom final : public core::Random {
 public:
  std::uint64_t Uniform(std::uint64_t upper) override { return upper; }
};

// Relay settings for tests: no listening connection, one loop, the given batch.
inline RelaySettings TestRelaySettings(int batch = 100) {
  RelaySettings settings;
  settings.batch = batch;
  settings.concurrency = 1;
  settings.listen = false;
  return settings;
}

// Emits `count` events of `type` in one transaction; returns their ids.
inline std::vector<std::string> EmitMany(db::Pool& pool, int count,
                                         const std::string& type = "task.created",
                                         std::int64_t user_id = 1) {
  std::vector<std::string> ids;
  auto tx = pool.Begin("emit_many");
  for (int i = 0; i < count; ++i) ids.push_back(Emit(tx, type, user_id, {{"n", i}}));
  tx.Commit();
  return ids;
}

// Runs `relay` until a batch claims nothing.
inline int Drain(Relay& relay) {
  int dispatched = 0;
  for (RelayRunStats stats = relay.RunOnce(); stats.claimed > 0; stats = relay.RunOnce()) {
    dispatched += stats.dispatched;
  }
  return dispatched;
}

}  // namespace chopar::outbox::testing
