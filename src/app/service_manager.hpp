#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace chopar::app {

// What systemd learns from chopar when it runs as a `Type=notify` unit
// (packaging/chopar.service): sd_notify(3) messages on $NOTIFY_SOCKET. Every
// call does nothing when the process was not started by systemd (no
// NOTIFY_SOCKET) or chopar was built without libsystemd. Thread-compatible.
class ServiceManager {
 public:
  // READY=1 and STATUS=`status`: the process serves.
  void Ready(std::string_view status) const;
  // STOPPING=1: draining after a signal.
  void Stopping() const;
  // How often to send Watchdog(): half of the unit's WatchdogSec, or nullopt
  // when systemd watches nothing.
  [[nodiscard]] std::optional<std::chrono::milliseconds> WatchdogInterval() const;
  // WATCHDOG=1: the main thread is alive.
  void Watchdog() const;
};

}  // namespace chopar::app
