#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace chopar::testing {

// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for provider
// fakes: each test decides the answers, faults included (a late answer, a
// connection reset instead of an answer). Handlers run on a thread per
// connection, so slow answers overlap as a real provider's would. Records
// every request, with the delivery it names (X-Chopar-Delivery-Id) and the
// answer it was given. Thread-safe.
class FakeHttpServer {
 public:
  struct Request {
    std::string method;
    std::string target;  // path and query
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
    // The X-Chopar-Delivery-Id header: the delivery this request carries.
    std::optional<std::int64_t> delivery_id{};
    // The status the handler decided on (0: no answer, the connection was
    // reset), set before any delay: a provider that decided to accept has
    // accepted, whether or not its answer reaches the client.
    int answer_status = 0;
    // When the request had been read, and which chopar process sent it (the
    // X-Chopar-Instance header: its pid; nullopt when absent).
    std::chrono::system_clock::time_point received_at{};
    std::optional<std::int64_t> instance{};
  };
  struct Response {
    int status = 200;
    std::string body;
    std::map<std::string, std::string> headers;
    std::string content_type = "application/json";
    // Answer this much later (a slow provider; cut short when the server
    // stops).
    std::chrono::milliseconds delay{0};
    // After the delay, reset the connection (TCP RST) instead of answering.
    bool reset = false;
  };
  using Handler = std::function<Response(const Request&)>;
  struct Options {
    // The listen backlog: connections the kernel holds before they are
    // accepted. Small for a modest receiver (a threaded server with its
    // default backlog); 0: the system's largest.
    int backlog = 0;
  };

  explicit FakeHttpServer(Handler handler) : FakeHttpServer(std::move(handler), Options{}) {}
  FakeHttpServer(Handler handler, Options options);
  ~FakeHttpServer();
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  // "http://127.0.0.1:<port>"
  [[nodiscard]] std::string url() const;
  [[nodiscard]] std::vector<Request> requests() const;
  [[nodiscard]] std::size_t request_count() const;
  // Connections accepted so far (kept-alive ones carry several requests).
  [[nodiscard]] std::size_t connection_count() const;
  void SetHandler(Handler handler);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace chopar::testing
