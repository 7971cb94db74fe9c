#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "http/api.hpp"
#include "http/router.hpp"

namespace chopar::http {

struct Settings {
  std::string host = "127.0.0.1";  // an IP address to bind
  std::uint16_t port = 8080;       // 0: any free port, see Server::port()
  std::string api_key;             // Authorization: Bearer for server endpoints
  std::string inbox_secret;        // signs subscriber tokens

  int io_threads = 2;        // parse and write only; never run handlers
  int handler_threads = 16;  // run handlers, which block on the database

  std::size_t body_limit = 1 << 20;                    // larger → 413 payload_too_large
  std::chrono::milliseconds header_timeout{10'000};    // a request's headers must arrive within
  std::chrono::milliseconds body_timeout{30'000};      // then its body within
  std::chrono::milliseconds idle_timeout{60'000};      // an idle keep-alive connection is closed
  std::chrono::milliseconds write_timeout{30'000};     // a response must be taken within
  std::chrono::milliseconds sse_heartbeat{15'000};     // ": ping" on an otherwise quiet stream
  std::chrono::milliseconds shutdown_timeout{10'000};  // Stop() waits this long for requests
};

// Parses the [server] listen setting into Settings::host and ::port:
// "127.0.0.1:8080", "[::1]:8080", "localhost:8080" (= 127.0.0.1) or ":8080"
// (every interface). The host must be an IP address otherwise. Throws
// std::invalid_argument.
void ApplyListenAddress(std::string_view listen, Settings& settings);

// The HTTP API on Boost.Beast: HTTP/1.1 keep-alive connections served by
// coroutines on `io_threads` threads that only parse and write; every
// handler runs on a pool of `handler_threads` and its response is posted
// back to the connection's strand. Server-Sent Events streams are
// asynchronous on the IO threads too, woken through one LISTEN connection
// (InboxListener), so an idle stream costs a socket and a little memory, no
// thread.
//
// Lifecycle: construct, optionally add routes through router(), Start(),
// Stop() (also run by the destructor). Start() and Stop() are called from one
// thread; port() is thread-safe once Start() has returned.
class Server {
 public:
  Server(Settings settings, Dependencies deps);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Every API route is registered at construction; more may be added here
  // before Start() (for example by later areas of the application).
  Router& router();

  // Binds and listens, starts the IO threads, the handler pool and the inbox
  // listener. Throws boost::system::system_error if the address cannot be
  // bound, std::logic_error if called twice.
  void Start();

  // Graceful: stops accepting, closes idle connections and streams, lets
  // requests in progress finish and answer (with Connection: close) for up to
  // shutdown_timeout, then closes whatever is left and joins every thread.
  // Idempotent.
  void Stop();

  // The bound port (useful with port 0); 0 before Start().
  [[nodiscard]] std::uint16_t port() const;

  // Open connections (including streams), for tests and metrics.
  [[nodiscard]] std::size_t connections() const;
  // Times the inbox listener has (re)connected.
  [[nodiscard]] std::uint64_t listener_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chopar::http
