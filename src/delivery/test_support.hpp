#pragma once

// Test doubles shared by the delivery tests (header only; not part of the
// library).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "channels/channel.hpp"
#include "core/backoff.hpp"
#include "db/pool.hpp"
#include "delivery/worker.hpp"

namespace chopar::delivery::testing {

// A channel that records every message it is given, answers with a
// configurable outcome per message, and can be told to block inside Send()
// until released. Thread-safe.
class TestChannel final : public channels::Channel {
 public:
  using Answer = std::function<channels::Outcome(const channels::Message&)>;

  explicit TestChannel(Answer answer = DefaultAnswer) : answer_(std::move(answer)) {}

  static channels::Outcome DefaultAnswer(const channels::Message& m) {
    return channels::Outcome::Sent("pm-" + std::to_string(m.delivery_id));
  }

  void SetAnswer(Answer answer) {
    std::lock_guard lock(mutex_);
    answer_ = std::move(answer);
  }
  // Sends from now on wait inside Send() until Unblock().
  void Block() {
    std::lock_guard lock(mutex_);
    blocked_ = true;
  }
  void Unblock() {
    {
      std::lock_guard lock(mutex_);
      blocked_ = false;
    }
    cv_.notify_all();
  }
  // Waits until at least `n` messages have entered Send() (blocked or not).
  bool WaitForEntered(std::size_t n, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return messages_.size() >= n; });
  }

  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    std::unique_lock lock(mutex_);
    messages_.insert(messages_.end(), messages.begin(), messages.end());
    ++batches_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !blocked_; });
    std::vector<channels::Outcome> out;
    for (const auto& m : messages) out.push_back(answer_(m));
    return out;
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "test"; }

  std::vector<channels::Message> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }
  int batches() const {
    std::lock_guard lock(mutex_);
    return batches_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  Answer answer_;
  bool blocked_ = false;
  int batches_ = 0;
  std::vector<channels::Message> messages_;
};

// Passes every batch to `inner` and counts the messages it returned for,
// so a test can wait for a number of sends without polling. Thread-safe.
class CountingChannel final : public channels::Channel {
 public:
  explicit CountingChannel(channels::Channel& inner) : inner_(inner) {}
  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    auto out = inner_.Send(messages);
    {
      std::lock_guard lock(mutex_);
      count_ += messages.size();
    }
    cv_.notify_all();
    return out;
  }
  [[nodiscard]] std::string_view ProviderName() const override { return inner_.ProviderName(); }
  bool WaitForCount(std::size_t n, std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return count_ >= n; });
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return count_;
  }

 private:
  channels::Channel& inner_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t count_ = 0;
};

// Jitter pinned to the top of the range: backoff becomes deterministic.
class TopRandom final : public core::Random {
 public:
  std::uint64_t Uniform(std::uint64_t upper) override { return upper; }
};

// Runs `count` workers on as many threads, each with its own pool, started
// together and claiming until a claim finds nothing: their claims interleave
// for real.
inline void DrainConcurrently(const std::string& database_url, int count, ChannelSet channels,
                              const core::Clock& clock, const WorkerSettings& settings) {
  core::MetricsRegistry metrics;
  std::vector<std::unique_ptr<db::Pool>> pools;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < count; ++i) {
    pools.push_back(std::make_unique<db::Pool>(database_url, 2));
    workers.push_back(std::make_unique<Worker>(*pools.back(), channels, clock, metrics, settings));
  }
  std::latch start(count);
  std::vector<std::thread> threads;
  for (auto& worker : workers) {
    threads.emplace_back([&start, &w = *worker] {
      start.arrive_and_wait();
      while (w.RunOnce().claimed > 0) {
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace chopar::delivery::testing
