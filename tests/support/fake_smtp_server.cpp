#include "testing/fake_smtp_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace chopar::testing {
namespace {

std::string Upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string Base64Decode(const std::string& text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned int buffer = 0;
  int bits = 0;
  for (char c : text) {
    const auto at = kAlphabet.find(c);
    if (at == std::string::npos) continue;  // '=' padding and whitespace
    buffer = (buffer << 6) | static_cast<unsigned int>(at);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

// The address inside "MAIL FROM:<a@b> SIZE=1" / "RCPT TO:<a@b>".
std::string AngleAddress(const std::string& line) {
  const auto open = line.find('<');
  const auto close = line.find('>', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

// The delivery id at the start of the Message-ID header's local part.
std::optional<std::int64_t> DeliveryIdOf(const std::string& data) {
  const auto header = Upper(data).find("\r\nMESSAGE-ID:");
  const auto open = data.find('<', header == std::string::npos ? 0 : header);
  if (header == std::string::npos || open == std::string::npos) return std::nullopt;
  std::size_t end = open + 1;
  while (end < data.size() && std::isdigit(static_cast<unsigned char>(data[end])) != 0) ++end;
  if (end == open + 1 || end >= data.size() || data[end] != '.') return std::nullopt;
  return std::stoll(data.substr(open + 1, end - open - 1));
}

}  // namespace

struct FakeSmtpServer::Impl {
  int listen_fd = -1;
  std::thread accept_thread;
  mutable std::mutex mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  Script script;
  std::optional<std::pair<std::string, std::string>> credentials;
  std::vector<Received> received;
  std::vector<std::string> command_log;
  std::set<int> open_fds;
  // One per session, until its thread has ended and is joined.
  struct SessionThread {
    std::shared_ptr<std::atomic<bool>> done;
    std::thread thread;
  };
  std::vector<SessionThread> sessions;
  int accepted = 0;
  int peak = 0;

  // One connection's line reader and writer.
  struct Conn {
    int fd;
    std::string buffer;
    bool ReadLine(std::string& line) {
      for (;;) {
        const auto end = buffer.find("\r\n");
        if (end != std::string::npos) {
          line = buffer.substr(0, end);
          buffer.erase(0, end + 2);
          return true;
        }
        char chunk[4096];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) return false;
        buffer.append(chunk, static_cast<std::size_t>(n));
      }
    }
    bool Write(const std::string& text) {
      std::size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
      }
      return true;
    }
  };

  static bool IsSuccess(const std::string& reply) { return !reply.empty() && (reply[0] == '2' || reply[0] == '3'); }

  // Asks the script, tells `decided` the reply (unless the connection is to
  // be dropped), waits out the delay (cut short when the server stops) and
  // writes the reply; `alive` turns false when the session must end.
  std::string Answer(Stage stage, const Session& session, const std::string& normal, Conn& conn,
                     bool& alive, const std::function<void(const std::string&)>& decided = {}) {
    Script current;
    {
      std::lock_guard lock(mutex);
      current = script;
    }
    Action action = current ? current(stage, session) : Action{};
    const std::string reply = action.reply.empty() ? normal : action.reply;
    if (!action.drop && decided) decided(reply);
    if (action.delay.count() > 0) {
      std::unique_lock lock(mutex);
      if (stop_cv.wait_for(lock, action.delay, [this] { return stopping; })) {
        alive = false;
        return "";
      }
    }
    if (action.drop) {
      alive = false;
      return "";
    }
    alive = conn.Write(reply + "\r\n");
    return reply;
  }

  void Serve(int fd, int number) {
    Conn conn{fd, {}};
    Session session;
    session.connection = number;
    std::string auth_user;
    bool alive = true;
    Answer(Stage::kGreeting, session, "220 fake.smtp.test ESMTP ready", conn, alive);
    std::string line;
    while (alive && conn.ReadLine(line)) {
      {
        std::lock_guard lock(mutex);
        command_log.push_back(line);
      }
      const std::string verb = Upper(line.substr(0, line.find(' ')));
      if (verb == "EHLO") {
        std::string normal = "250-fake.smtp.test greets you\r\n250-8BITMIME\r\n250-SIZE 10485760\r\n";
        {
          std::lock_guard lock(mutex);
          if (credentials) normal += "250-AUTH PLAIN\r\n";
        }
        normal += "250 ENHANCEDSTATUSCODES";
        Answer(Stage::kEhlo, session, normal, conn, alive);
      } else if (verb == "HELO") {
        Answer(Stage::kEhlo, session, "250 fake.smtp.test", conn, alive);
      } else if (verb == "AUTH") {
        std::string initial = line.size() > 11 ? line.substr(11) : "";  // "AUTH PLAIN <b64>"
        if (Upper(line.substr(0, 10)) != "AUTH PLAIN") {
          alive = conn.Write("504 5.5.4 Unrecognized authentication type\r\n");
          continue;
        }
        if (initial.empty() || initial == "=") {
          if (!conn.Write("334 \r\n") || !conn.ReadLine(initial)) break;
        }
        const std::string decoded = Base64Decode(initial);
        const auto first = decoded.find('\0');
        const auto second = decoded.find('\0', first == std::string::npos ? 0 : first + 1);
        std::string user;
        std::string password;
        if (first != std::string::npos && second != std::string::npos) {
          user = decoded.substr(first + 1, second - first - 1);
          password = decoded.substr(second + 1);
        }
        bool ok = false;
        {
          std::lock_guard lock(mutex);
          ok = credentials && credentials->first == user && credentials->second == password;
        }
        const std::string reply = Answer(Stage::kAuth, session,
                                         ok ? "235 2.7.0 Authentication successful"
                                            : "535 5.7.8 Authentication credentials invalid",
                                         conn, alive);
        if (IsSuccess(reply)) auth_user = user;
      } else if (verb.starts_with("MAIL")) {
        session.mail_from = AngleAddress(line);
        session.rcpt_to.clear();
        bool needs_auth = false;
        {
          std::lock_guard lock(mutex);
          needs_auth = credentials.has_value() && auth_user.empty();
        }
        if (needs_auth) {
          alive = conn.Write("530 5.7.0 Authentication required\r\n");
          continue;
        }
        const std::string reply = Answer(Stage::kMailFrom, session, "250 2.1.0 Ok", conn, alive);
        if (!IsSuccess(reply)) session.mail_from.clear();
      } else if (verb.starts_with("RCPT")) {
        const std::string address = AngleAddress(line);
        Session asking = session;
        asking.rcpt_to.push_back(address);
        const std::string reply = Answer(Stage::kRcptTo, asking, "250 2.1.5 Ok", conn, alive);
        if (IsSuccess(reply)) session.rcpt_to.push_back(address);
      } else if (verb == "DATA") {
        if (session.rcpt_to.empty()) {
          alive = conn.Write("554 5.5.1 No valid recipients\r\n");
          continue;
        }
        const std::string reply = Answer(Stage::kData, session, "354 End data with <CR><LF>.<CR><LF>", conn, alive);
        if (!alive || !IsSuccess(reply)) continue;
        std::string data;
        bool complete = false;
        while (conn.ReadLine(line)) {
          if (line == ".") {
            complete = true;
            break;
          }
          if (line.starts_with(".")) line.erase(0, 1);  // dot-stuffing (RFC 5321 §4.5.2)
          data += line + "\r\n";
        }
        if (!complete) break;
        session.data = data;
        // Recorded as soon as the 250 is decided: before the client can see
        // it, so a test that got it finds the message, and before any delay,
        // since a server that decided to accept has the message.
        Answer(Stage::kDataEnd, session, "250 2.0.0 Ok: queued", conn, alive, [&](const std::string& reply) {
          if (!reply.starts_with("250")) return;
          std::lock_guard lock(mutex);
          received.push_back(
              {number, session.mail_from, session.rcpt_to, data, auth_user, DeliveryIdOf(data),
               std::chrono::system_clock::now()});
        });
        session.mail_from.clear();
        session.rcpt_to.clear();
        session.data.clear();
      } else if (verb == "RSET") {
        session.mail_from.clear();
        session.rcpt_to.clear();
        alive = conn.Write("250 2.0.0 Ok\r\n");
      } else if (verb == "NOOP") {
        alive = conn.Write("250 2.0.0 Ok\r\n");
      } else if (verb == "QUIT") {
        conn.Write("221 2.0.0 Bye\r\n");
        break;
      } else {
        alive = conn.Write("502 5.5.2 Command not recognized\r\n");
      }
    }
    std::lock_guard lock(mutex);
    open_fds.erase(fd);
    ::close(fd);
  }
};

FakeSmtpServer::FakeSmtpServer(Script script) : impl_(std::make_shared<Impl>()) {
  impl_->script = std::move(script);
  impl_->listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (impl_->listen_fd < 0) throw std::runtime_error("fake smtp: socket failed");
  const int yes = 1;
  ::setsockopt(impl_->listen_fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(impl_->listen_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(impl_->listen_fd, 512) != 0) {
    ::close(impl_->listen_fd);
    throw std::runtime_error("fake smtp: bind/listen failed");
  }
  socklen_t length = sizeof address;
  ::getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);

  impl_->accept_thread = std::thread([impl = impl_] {
    for (;;) {
      pollfd waiting{impl->listen_fd, POLLIN, 0};
      const int ready = ::poll(&waiting, 1, 50);
      {
        std::lock_guard lock(impl->mutex);
        if (impl->stopping) return;
      }
      if (ready <= 0) continue;
      const int fd = ::accept4(impl->listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard lock(impl->mutex);
      if (impl->stopping) {  // the destructor already woke the sessions it knew of
        ::close(fd);
        return;
      }
      const int number = ++impl->accepted;
      impl->open_fds.insert(fd);
      impl->peak = std::max(impl->peak, static_cast<int>(impl->open_fds.size()));
      for (auto it = impl->sessions.begin(); it != impl->sessions.end();) {
        if (it->done->load()) {
          it->thread.join();
          it = impl->sessions.erase(it);
        } else {
          ++it;
        }
      }
      auto done = std::make_shared<std::atomic<bool>>(false);
      std::thread thread([impl, fd, number, done] {
        impl->Serve(fd, number);
        done->store(true);
      });
      impl->sessions.push_back({done, std::move(thread)});
    }
  });
}

FakeSmtpServer::~FakeSmtpServer() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
    // Wake every session blocked in recv; each closes its own descriptor.
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
  }
  impl_->stop_cv.notify_all();
  impl_->accept_thread.join();
  ::close(impl_->listen_fd);
  std::vector<Impl::SessionThread> sessions;
  {
    std::lock_guard lock(impl_->mutex);
    sessions.swap(impl_->sessions);
  }
  for (auto& session : sessions) session.thread.join();
}

std::string FakeSmtpServer::url() const { return "smtp://127.0.0.1:" + std::to_string(port_); }

void FakeSmtpServer::SetScript(Script script) {
  std::lock_guard lock(impl_->mutex);
  impl_->script = std::move(script);
}

void FakeSmtpServer::RequireAuth(std::string user, std::string password) {
  std::lock_guard lock(impl_->mutex);
  impl_->credentials.emplace(std::move(user), std::move(password));
}

std::vector<FakeSmtpServer::Received> FakeSmtpServer::messages() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->received;
}

std::size_t FakeSmtpServer::message_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->received.size();
}

int FakeSmtpServer::connections() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->accepted;
}

int FakeSmtpServer::peak_connections() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->peak;
}

std::vector<std::string> FakeSmtpServer::commands() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->command_log;
}

}  // namespace chopar::testing
