#include "app/shutdown_signal.hpp"

#include <pthread.h>
#include <signal.h>

#include <cerrno>

namespace chopar::app {
namespace {
sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}
}  // namespace

void BlockShutdownSignals() {
  const sigset_t set = ShutdownSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForShutdownSignal() {
  const sigset_t set = ShutdownSet();
  int signal = 0;
  sigwait(&set, &signal);
  return signal;
}

std::optional<int> WaitForShutdownSignal(std::chrono::milliseconds timeout) {
  const sigset_t set = ShutdownSet();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const timespec wait{static_cast<time_t>(seconds.count()),
                      static_cast<long>((timeout - seconds).count() * 1'000'000)};
  for (;;) {
    const int signal = sigtimedwait(&set, nullptr, &wait);
    if (signal > 0) return signal;
    if (errno != EINTR) return std::nullopt;  // EAGAIN: the time is up
  }
}

}  // namespace chopar::app
