#pragma once

// Test use: a raw TCP connection to the server on 127.0.0.1, for what curl
// would not send (malformed or slow requests, clients that never read).

#include <sys/socket.h>

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <string>

namespace chopar::http::testing {

// Blocking socket calls on the test's thread. Not thread-safe.
class RawConnection {
 public:
  // `receive_buffer` > 0 shrinks SO_RCVBUF before connecting (a client that
  // does not read then fills up soon).
  explicit RawConnection(std::uint16_t port, int receive_buffer = 0) : socket_(io_) {
    socket_.open(boost::asio::ip::tcp::v4());
    if (receive_buffer > 0) {
      setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVBUF, &receive_buffer,
                 sizeof(receive_buffer));
    }
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    SetReadLimit(std::chrono::seconds(20));  // a guard against hanging, not a measurement
  }

  void Send(const std::string& text) { boost::asio::write(socket_, boost::asio::buffer(text)); }

  // Sending may fail once the server has closed: false then.
  bool TrySend(const std::string& text) {
    boost::system::error_code ec;
    boost::asio::write(socket_, boost::asio::buffer(text), ec);
    return !ec;
  }

  // Everything until the server closes; `closed` false if the guard fired.
  std::string ReadToEnd(bool& closed) {
    std::string out;
    closed = ReadInto(out, "");
    return out;
  }

  // Reads until `marker` has arrived, the server closes, or `limit` passes.
  // `closed` tells whether the server closed.
  std::string ReadUntil(const std::string& marker, std::chrono::milliseconds limit, bool& closed) {
    SetReadLimit(limit);
    std::string out;
    closed = ReadInto(out, marker);
    SetReadLimit(std::chrono::seconds(20));
    return out;
  }

  boost::asio::ip::tcp::socket& socket() { return socket_; }

 private:
  void SetReadLimit(std::chrono::milliseconds limit) {
    timeval value{static_cast<time_t>(limit.count() / 1000),
                  static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
    setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &value, sizeof(value));
  }

  // True when the server closed (or reset); false on the read limit or once
  // `marker` (if any) is in `out`.
  bool ReadInto(std::string& out, const std::string& marker) {
    boost::system::error_code ec;
    std::array<char, 4096> chunk;
    while (true) {
      const std::size_t n = socket_.read_some(boost::asio::buffer(chunk), ec);
      out.append(chunk.data(), n);
      if (ec) return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
      if (!marker.empty() && out.find(marker) != std::string::npos) return false;
    }
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
};

}  // namespace chopar::http::testing
