#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace chopar::http {

// How the HTTP server behaves; a value, set once at construction. app::Config
// holds it as [server]: listen (host and port), api_key, inbox_secret,
// io_threads, handler_threads, the connection and stream caps and the idle
// and write timeouts, with these defaults (docs/configuration.md); the rest
// is not configurable.
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

  // Open connections (streams included) at most; one more is answered 503
  // and closed at once. Also kept below the open-file limit (see Server).
  int max_connections = 10'000;
  // Server-Sent Events streams at most, in all and per user; one more is
  // answered 503 unavailable instead of becoming a stream.
  int max_streams = 8'000;
  int max_streams_per_user = 10;
};

// Parses the [server] listen setting into Settings::host and ::port:
// "127.0.0.1:8080", "[::1]:8080", "localhost:8080" (= 127.0.0.1) or ":8080"
// (every interface). The host must be an IP address otherwise. Throws
// std::invalid_argument.
void ApplyListenAddress(std::string_view listen, Settings& settings);

}  // namespace chopar::http
