#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace chopar::testing {

// A real SMTP server (RFC 5321, plaintext) on 127.0.0.1, an ephemeral port,
// for testing the email channel: 220 greeting, multi-line 250 to EHLO
// (HELO too), optional AUTH PLAIN, MAIL / RCPT / DATA with 354, the message
// read up to "<CRLF>.<CRLF>" and un-dot-stuffed, RSET, NOOP, QUIT 221. It
// never offers STARTTLS, so a client that requires TLS must refuse to go on.
//
// Each test decides the answer at every stage with a Script; the default
// accepts everything. A session runs on its own thread, so a slow answer
// (Action::delay, or a script that blocks) overlaps with other sessions as a
// real server's would. Every accepted message is recorded. Thread-safe.
// The destructor interrupts delays, closes every connection and joins all
// session threads.
class FakeSmtpServer {
 public:
  enum class Stage { kGreeting, kEhlo, kAuth, kMailFrom, kRcptTo, kData, kDataEnd };

  // What the current session looks like when the script is asked.
  struct Session {
    int connection = 0;  // 1 for the first connection accepted, 2 for the next...
    std::string mail_from;
    std::vector<std::string> rcpt_to;
    std::string data;  // at kDataEnd: the message as received (un-dot-stuffed)
  };
  struct Action {
    // The reply line(s) without the final CRLF; empty: the stage's normal
    // success reply. Multi-line replies use "\r\n" between lines.
    std::string reply;
    bool drop = false;  // close the connection instead of answering
    std::chrono::milliseconds delay{0};
  };
  using Script = std::function<Action(Stage, const Session&)>;

  struct Received {
    int connection = 0;
    std::string mail_from;  // without the angle brackets
    std::vector<std::string> rcpt_to;
    std::string data;  // un-dot-stuffed, CRLF line ends, without the final "."
    std::string auth_user;  // empty when the session did not authenticate
    // The delivery the message carries: chopar's Message-ID starts with it
    // ("<42.…@domain>"); nullopt for any other Message-ID.
    std::optional<std::int64_t> delivery_id{};
    // When the 250 to its end of data was decided.
    std::chrono::system_clock::time_point accepted_at{};
  };

  explicit FakeSmtpServer(Script script = {});
  ~FakeSmtpServer();
  FakeSmtpServer(const FakeSmtpServer&) = delete;
  FakeSmtpServer& operator=(const FakeSmtpServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  // "smtp://127.0.0.1:<port>"
  [[nodiscard]] std::string url() const;
  void SetScript(Script script);
  // Credentials AUTH PLAIN accepts (535 otherwise); without them AUTH is
  // not advertised.
  void RequireAuth(std::string user, std::string password);

  // Messages answered with 250 at the end of DATA, in order: recorded when
  // the 250 was decided, before any delay of it — a server that decided to
  // accept has accepted, whether or not its answer reaches the client.
  [[nodiscard]] std::vector<Received> messages() const;
  [[nodiscard]] std::size_t message_count() const;
  // Connections accepted so far, and the most that were open at once.
  [[nodiscard]] int connections() const;
  [[nodiscard]] int peak_connections() const;
  // Every command line received by any session, in arrival order.
  [[nodiscard]] std::vector<std::string> commands() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace chopar::testing
