#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace chopar::testing {

// A program started by a black-box test, with extra environment variables and
// its output (stdout and stderr) in a file. Killed (SIGKILL) on destruction if
// still running. Not thread-safe.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::filesystem::path& output, const std::filesystem::path& cwd = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void Signal(int signal);
  // Waits for the exit; returns the exit code (128 + signal when killed), or
  // -1 on timeout.
  int Wait(std::chrono::milliseconds timeout);
  [[nodiscard]] bool Running();
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string Output() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::filesystem::path output_;
};

// A TCP port on 127.0.0.1 that was free a moment ago (for a server a test
// starts), picked at random below the kernel's ephemeral range, where no
// client socket takes it in between; another test's pick still could, which
// tests accept.
int FreeLoopbackPort();

// Polls `condition` every 50 ms until it holds or `timeout` passes.
bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

}  // namespace chopar::testing
