#include "app/service_manager.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#ifdef CHOPAR_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

namespace chopar::app {
namespace {

void Notify([[maybe_unused]] const std::string& state) {
#ifdef CHOPAR_HAVE_SYSTEMD
  sd_notify(0, state.c_str());
#endif
}

}  // namespace

void ServiceManager::Ready(std::string_view status) const {
  Notify("READY=1\nSTATUS=" + std::string(status));
}

void ServiceManager::Stopping() const { Notify("STOPPING=1\nSTATUS=draining"); }

std::optional<std::chrono::milliseconds> ServiceManager::WatchdogInterval() const {
#ifdef CHOPAR_HAVE_SYSTEMD
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    return std::chrono::milliseconds(std::max<std::uint64_t>(1, usec / 2000));
  }
#endif
  return std::nullopt;
}

void ServiceManager::Watchdog() const { Notify("WATCHDOG=1"); }

}  // namespace chopar::app
