#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "testing/child_process.hpp"

namespace chopar::testing {

// A real NATS server with JetStream (`nats-server -js`, Debian package
// nats-server, installed by scripts/install-deps) on 127.0.0.1 and a port
// that was free, its JetStream store in a temporary folder: started by the
// constructor, killed and removed with the object. Not thread-safe.
class NatsServer {
 public:
  // Starts it and waits until it says it is ready. Throws
  // std::runtime_error when there is no nats-server binary or it does not
  // get ready within 15 s.
  NatsServer();
  ~NatsServer();
  NatsServer(const NatsServer&) = delete;
  NatsServer& operator=(const NatsServer&) = delete;

  // "nats://127.0.0.1:<port>"
  [[nodiscard]] std::string url() const;
  [[nodiscard]] int port() const { return port_; }
  // The server process (for CPU accounting); -1 while it is not running.
  [[nodiscard]] pid_t pid() const { return process_ ? process_->pid() : -1; }

  // Kills it (SIGKILL), or starts it again on the same port and store.
  void Kill();
  void Restart();

  // Where the nats-server binary is (PATH, then /usr/sbin, /usr/bin), or
  // nullopt: tests skip with a message when it is missing.
  static std::optional<std::string> Binary();

 private:
  void Launch();

  std::filesystem::path dir_;
  int port_ = 0;
  int launches_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace chopar::testing
