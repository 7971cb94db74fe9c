#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace chopar::http {

// [limits.http]: token buckets of the public routes (http/rate_limiter.hpp).
// A rate of 0 turns that scope off. The defaults leave room for many open
// bells per user and many users behind one address; the API key's is off.
struct RateLimitSettings {
  double subscriber_per_second = 5;  // per subscriber (the token's user), /v1/inbox/…
  double subscriber_burst = 100;
  double address_per_second = 100;   // per client address, /v1/inbox/… and /v1/unsubscribe…
  double address_burst = 1000;
  double api_key_per_second = 0;     // every call with the API key, together
  double api_key_burst = 0;
};

// Who may GET /metrics on the API port.
enum class MetricsAccess {
  kApiKey,     // with the API key (the default)
  kPublic,     // anyone ([server] public_metrics = true)
  kNotServed,  // 404: it is served on [server] metrics_listen instead
};

// How the HTTP server behaves; a value, set once at construction. app::Config
// holds it as [server]: listen (host and port), api_key, inbox_secret,
// io_threads, handler_threads, the connection and stream caps and the idle
// and write timeouts, with these defaults (docs/configuration.md), and
// [limits.http] as `limits`; the rest is not configurable.
struct Settings {
  std::string host = "127.0.0.1";  // an IP address to bind
  std::uint16_t port = 8080;       // 0: any free port, see Server::port()
  std::string api_key;             // Authorization: Bearer for server endpoints
  std::string inbox_secret;        // signs subscriber tokens
  // The last day (UTC, YYYY-MM-DD) v1 subscriber tokens are accepted; "":
  // never (see subscriber_token.hpp).
  std::string accept_v1_tokens_until = "2027-06-30";

  int io_threads = 2;        // parse and write only; never run handlers
  int handler_threads = 16;  // run handlers, which block on the database

  std::size_t body_limit = 1 << 20;                    // larger → 413 payload_too_large
  std::chrono::milliseconds header_timeout{10'000};    // a request's headers must arrive within
  std::chrono::milliseconds body_timeout{30'000};      // then its body within
  std::chrono::milliseconds idle_timeout{60'000};      // an idle keep-alive connection is closed
  std::chrono::milliseconds write_timeout{30'000};     // a response must be taken within
  std::chrono::milliseconds sse_heartbeat{15'000};     // ": ping" on an otherwise quiet stream
  std::chrono::milliseconds shutdown_timeout{10'000};  // Stop() waits this long for requests

  // The largest body of POST /v1/users/import ([limits.http]
  // import_body_bytes); larger → 413 payload_too_large.
  std::size_t import_body_limit = 64 << 20;

  // Open connections (streams included) at most; one more is answered 503
  // and closed at once. Also kept below the open-file limit (see Server).
  int max_connections = 10'000;
  // Server-Sent Events streams at most, in all and per user; one more is
  // answered 503 unavailable instead of becoming a stream.
  int max_streams = 8'000;
  int max_streams_per_user = 10;

  RateLimitSettings limits;
  // /metrics of the API (Server(Settings, Dependencies)); a metrics-only
  // server (Server(Settings, Pool&, MetricsRegistry&)) always serves it to
  // anyone.
  MetricsAccess metrics_access = MetricsAccess::kApiKey;
};

// Parses the [server] listen setting into Settings::host and ::port:
// "127.0.0.1:8080", "[::1]:8080", "localhost:8080" (= 127.0.0.1) or ":8080"
// (every interface). The host must be an IP address otherwise. Throws
// std::invalid_argument.
void ApplyListenAddress(std::string_view listen, Settings& settings);

}  // namespace chopar::http
