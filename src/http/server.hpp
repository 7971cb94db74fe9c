#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "http/api.hpp"
#include "http/dispatcher.hpp"
#include "http/router.hpp"
#include "http/settings.hpp"

namespace chopar::http {

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
  // The API of docs/api.md: every route of RegisterApiRoutes (/metrics as
  // settings.metrics_access says) and the inbox listener of its streams.
  Server(Settings settings, Dependencies deps);
  // Only GET /healthz and GET /metrics, both without credentials
  // (RegisterSystemRoutes): what a process serves on [server] metrics_listen.
  Server(Settings settings, db::Pool& pool, core::MetricsRegistry& metrics);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Every API route is registered at construction; more may be added here
  // before Start() (for example by later areas of the application).
  Router& router();
  // Who else may call the server-credential routes besides [server]
  // api_key: the keys of POST /v1/api-keys and the console's sessions
  // (AuthKeys::api_keys, AuthKeys::sessions). Before Start() only.
  void AcceptCredentials(CredentialResolvers resolvers);

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
  // Open Server-Sent Events streams.
  [[nodiscard]] std::size_t streams() const;
  // Times the inbox listener has (re)connected (0 without the API).
  [[nodiscard]] std::uint64_t listener_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chopar::http
