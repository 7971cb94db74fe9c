#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace chopar::testing {

// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for provider
// fakes: each test decides the answers. Handlers run on a thread per
// connection, so slow answers (a sleeping fake) overlap as a real provider's
// would. Records every request. Thread-safe.
class FakeHttpServer {
 public:
  struct Request {
    std::string method;
    std::string target;  // path and query
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
  };
  struct Response {
    int status = 200;
    std::string body;
    std::map<std::string, std::string> headers;
    std::string content_type = "application/json";
  };
  using Handler = std::function<Response(const Request&)>;

  explicit FakeHttpServer(Handler handler);
  ~FakeHttpServer();
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  // "http://127.0.0.1:<port>"
  [[nodiscard]] std::string url() const;
  [[nodiscard]] std::vector<Request> requests() const;
  [[nodiscard]] std::size_t request_count() const;
  void SetHandler(Handler handler);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace chopar::testing
