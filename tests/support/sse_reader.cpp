#include "testing/sse_reader.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "testing/child_process.hpp"

namespace chopar::testing {

SseReader::SseReader(int port, const std::string& path) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd_);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  const std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
  if (send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    close(fd_);
    throw std::runtime_error("cannot send the stream request");
  }
  reader_ = std::thread([this] {
    char buffer[4096];
    while (!stop_) {
      pollfd ready{fd_, POLLIN, 0};
      if (poll(&ready, 1, 100) <= 0) continue;
      const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return;
      std::lock_guard lock(mutex_);
      received_.append(buffer, static_cast<std::size_t>(n));
    }
  });
}

SseReader::~SseReader() {
  stop_ = true;
  reader_.join();
  close(fd_);
}

std::string SseReader::Text() const {
  std::lock_guard lock(mutex_);
  return received_;
}

bool SseReader::WaitFor(const std::string& needle, std::chrono::milliseconds timeout,
                        int times) const {
  return WaitUntil(
      [&] {
        const std::string text = Text();
        int found = 0;
        for (auto at = text.find(needle); at != std::string::npos;
             at = text.find(needle, at + needle.size())) {
          ++found;
        }
        return found >= times;
      },
      timeout);
}

}  // namespace chopar::testing
