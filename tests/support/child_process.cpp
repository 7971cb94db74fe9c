#include "testing/child_process.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace chopar::testing {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                           const std::filesystem::path& output, const std::filesystem::path& cwd)
    : output_(output) {
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // The child: only async-signal-safe work until exec.
    const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    // The test process may block signals (chopar does); the child starts clean.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (Running()) {
    Signal(SIGKILL);
    Wait(std::chrono::seconds(10));
  }
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

bool ChildProcess::Running() {
  if (pid_ <= 0 || status_ >= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return false;
  }
  return true;
}

int ChildProcess::Wait(std::chrono::milliseconds timeout) {
  WaitUntil([&] { return !Running(); }, timeout);
  return status_ >= 0 ? status_ : -1;
}

std::string ChildProcess::Output() const {
  std::ifstream in(output_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

// Binds a TCP socket to 127.0.0.1:`port` (0: the kernel picks one) and
// closes it; the port bound, or 0 when the bind failed.
int ProbeLoopbackPort(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t length = sizeof address;
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  return bound ? ntohs(address.sin_port) : 0;
}

// The first port of the kernel's ephemeral range (ip_local_port_range), or 0.
int FirstEphemeralPort() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0;
  return range >> first ? first : 0;
}

}  // namespace

int FreeLoopbackPort() {
  // Below the ephemeral range: every outgoing connection (the tests' HTTP
  // clients, the servers' own) draws its local port from that range, so a
  // port the kernel handed out there can be taken by a client socket before
  // the server binds it. Below it only another test's pick can collide.
  constexpr int kLowest = 10000;  // above the fixed ports the tests use
  const int ceiling = FirstEphemeralPort();
  if (ceiling > kLowest + 1000) {
    static thread_local std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<int> pick(kLowest, ceiling - 1);
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (const int port = ProbeLoopbackPort(pick(random)); port != 0) return port;
    }
  }
  return ProbeLoopbackPort(0);
}

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace chopar::testing
