#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

namespace chopar::testing {

// A client of one Server-Sent Events stream of a server on 127.0.0.1: sends
// `GET <path>` over a plain socket and keeps everything the server sends
// (headers and events) on a thread of its own. Closes on destruction.
// Text() and WaitFor() are thread-safe.
class SseReader {
 public:
  // Throws std::runtime_error when it cannot connect.
  SseReader(int port, const std::string& path);
  ~SseReader();
  SseReader(const SseReader&) = delete;
  SseReader& operator=(const SseReader&) = delete;

  // Everything received so far.
  [[nodiscard]] std::string Text() const;
  // Waits until what was received contains `needle` `times` times.
  bool WaitFor(const std::string& needle, std::chrono::milliseconds timeout, int times = 1) const;

 private:
  int fd_ = -1;
  mutable std::mutex mutex_;
  std::string received_;
  std::atomic<bool> stop_{false};
  std::thread reader_;
};

}  // namespace chopar::testing
