#include "testing/nats_server.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace chopar::testing {

std::optional<std::string> NatsServer::Binary() {
  std::vector<std::filesystem::path> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      candidates.emplace_back(std::filesystem::path(dir) / "nats-server");
  }
  candidates.emplace_back("/usr/sbin/nats-server");
  candidates.emplace_back("/usr/bin/nats-server");
  for (const auto& candidate : candidates) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return std::nullopt;
}

NatsServer::NatsServer() {
  dir_ = std::filesystem::temp_directory_path() /
         ("chopar-nats-" + std::to_string(getpid()) + "-" +
          std::to_string(reinterpret_cast<std::uintptr_t>(this)));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_ / "store");
  port_ = FreeLoopbackPort();
  Launch();
}

NatsServer::~NatsServer() {
  process_.reset();  // SIGKILL if running
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string NatsServer::url() const { return "nats://127.0.0.1:" + std::to_string(port_); }

void NatsServer::Kill() {
  if (!process_) return;
  process_->Signal(SIGKILL);
  process_->Wait(std::chrono::seconds(10));
  process_.reset();
}

void NatsServer::Restart() {
  Kill();
  Launch();
}

void NatsServer::Launch() {
  const auto binary = Binary();
  if (!binary)
    throw std::runtime_error("nats-server is not installed (scripts/install-deps installs it)");
  const auto log = dir_ / ("server-" + std::to_string(++launches_) + ".log");
  process_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{*binary, "-js", "-a", "127.0.0.1", "-p", std::to_string(port_),
                               "-sd", (dir_ / "store").string()},
      std::map<std::string, std::string>{}, log);
  const bool ready = WaitUntil(
      [&] {
        return !process_->Running() ||
               process_->Output().find("Server is ready") != std::string::npos;
      },
      std::chrono::seconds(15));
  if (!ready || !process_->Running()) {
    throw std::runtime_error("nats-server did not start: " + process_->Output());
  }
}

}  // namespace chopar::testing
