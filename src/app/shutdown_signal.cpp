#include "app/shutdown_signal.hpp"

#include <pthread.h>
#include <signal.h>

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

}  // namespace chopar::app
