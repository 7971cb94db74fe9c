#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace chopar::testing {

// A real HTTP/2-over-TLS server on 127.0.0.1 (an ephemeral port), for
// provider fakes that speak only HTTP/2 (APNs). At start it makes a
// self-signed P-256 certificate for 127.0.0.1 and localhost, in memory, and
// writes it to ca_file() for clients to trust. Like Apple it offers only
// "h2" by ALPN: a client that offers other protocols only gets its TLS
// handshake refused (no_application_protocol), one that offers none gets
// the connection closed after the handshake; neither gets an answer.
// Each connection is served on its own thread (an nghttp2 server session
// over the TLS socket), streams one after the other. Records every request.
// Thread-safe.
class FakeH2Server {
 public:
  struct Request {
    std::string method;
    std::string path;
    // Names lower-cased (as HTTP/2 sends them); pseudo-headers left out;
    // a repeated header's values joined with ", ".
    std::map<std::string, std::string> headers;
    std::string body;
  };
  struct Response {
    int status = 200;
    std::map<std::string, std::string> headers;  // names are lower-cased when sent
    std::string body;
  };
  // Runs on the connection's thread; an exception becomes a 500.
  using Handler = std::function<Response(const Request&)>;

  // Listens before it returns. Throws std::runtime_error when a socket,
  // OpenSSL or the certificate file fails.
  explicit FakeH2Server(Handler handler);
  ~FakeH2Server();  // Stop()
  FakeH2Server(const FakeH2Server&) = delete;
  FakeH2Server& operator=(const FakeH2Server&) = delete;

  // Closes every connection, joins every thread and removes ca_file().
  // Idempotent.
  void Stop();

  [[nodiscard]] int port() const;
  // "https://127.0.0.1:<port>"
  [[nodiscard]] std::string url() const;
  // The PEM file of the server's certificate (its own CA).
  [[nodiscard]] const std::string& ca_file() const;
  [[nodiscard]] std::vector<Request> requests() const;
  [[nodiscard]] std::size_t request_count() const;
  // TCP connections accepted so far.
  [[nodiscard]] std::size_t connection_count() const;
  // Connections closed unanswered because they did not negotiate h2 (a
  // refused handshake included).
  [[nodiscard]] std::size_t refused_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chopar::testing
