#pragma once

// clang-format off
// Boost.Asio 1.74's awaitable.hpp uses std::exchange without including it.
#include <utility>
// clang-format on

// Internal to the server: one client connection and the registry of them.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/dispatcher.hpp"
#include "http/error_response.hpp"
#include "http/server.hpp"
#include "http/stream_hub.hpp"
#include "hub/inbox_service.hpp"

namespace chopar::http {

class Session;

// The open connections of a server, so Stop() can close them and wait for
// them to finish. Thread-safe.
class SessionRegistry {
 public:
  // False once closing has begun: the caller drops the new connection.
  bool Add(const std::shared_ptr<Session>& session);
  void Remove(const Session* session);
  // From now on Add() refuses; returns the live sessions.
  std::vector<std::shared_ptr<Session>> BeginClosing();
  std::vector<std::shared_ptr<Session>> Live();
  // True if every session has ended before `deadline`.
  bool WaitEmpty(std::chrono::steady_clock::time_point deadline);
  [[nodiscard]] std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable empty_;
  std::unordered_map<const Session*, std::weak_ptr<Session>> sessions_;
  bool closing_ = false;
};

// What every connection of one server shares. Outlives the connections.
struct ServerContext {
  const Settings& settings;
  const Dispatcher& dispatcher;
  boost::asio::thread_pool& handlers;
  StreamHub& streams;
  hub::InboxService* inbox;  // null when the server has no stream routes
  SessionRegistry& sessions;
};

// One client connection: a coroutine on the connection's strand that reads
// requests (timeouts, body limit, Expect: 100-continue), has each one
// dispatched on the handler pool, writes the responses (keep-alive), and may
// turn into a Server-Sent Events stream, whose events an InboxStream builds.
// Owned by shared_ptr: by its running coroutines and, weakly, by the
// registry and the StreamHub.
class Session final : public Wakeable, public std::enable_shared_from_this<Session> {
 public:
  Session(const ServerContext& context, boost::asio::ip::tcp::socket socket);
  ~Session() override;

  // Starts serving; call once, after the session is registered.
  void Start();
  // Thread-safe. Ends the connection gracefully: an idle one at once, a
  // request in progress after its response, a stream after its next event.
  void Shutdown();
  // Thread-safe. Closes the socket now.
  void ForceClose();
  // Thread-safe. For a stream: fetch and send what is new.
  void Wake() override;
  // Thread-safe. For a stream: send this `state` event with what is new.
  void Deliver(const std::shared_ptr<const nlohmann::json>& state) override;

 private:
  struct Incoming;
  enum class State { kIdle, kReading, kHandling, kStreaming };

  boost::asio::awaitable<void> Run();
  boost::asio::awaitable<std::optional<Incoming>> ReadRequest(bool first);
  boost::asio::awaitable<bool> Write(const Response& response, unsigned version, bool keep_alive);
  // Answers an unreadable request and closes without a reset, so the client
  // reads the answer even if it is still sending.
  boost::asio::awaitable<void> RefuseAndClose(const ErrorInfo& error, unsigned version);
  boost::asio::awaitable<void> Stream(StreamStart start, unsigned version);
  boost::asio::awaitable<bool> WriteStreamText(const std::string& text);
  boost::asio::awaitable<void> WatchForClose();
  void Close();

  const ServerContext& context_;
  boost::beast::tcp_stream stream_;
  const boost::asio::any_io_executor executor_;  // the connection's strand
  boost::beast::flat_buffer buffer_;
  boost::asio::steady_timer wake_timer_;
  const std::string client_address_;  // Request::client_address
  // X-Request-Id of the request being read or answered.
  std::string request_id_;
  State state_ = State::kIdle;
  bool stopping_ = false;
  // Streaming state (strand only).
  bool chunked_ = true;
  bool woken_ = false;
  bool peer_closed_ = false;
  std::optional<std::int64_t> stream_user_;
  // `state` events for the next fetch (at most InboxStream::kMaxPendingStates).
  std::vector<nlohmann::json> pending_states_;
};

}  // namespace chopar::http
