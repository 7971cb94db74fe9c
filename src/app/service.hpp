#pragma once

#include "app/config.hpp"

namespace chopar::app {

enum class Role {
  kServe,      // HTTP API + delivery workers + scheduler
  kWorker,     // delivery workers only
  kScheduler,  // the schedule firing loop only
  kRelay,      // the outbox relays only
};

// Runs chopar until SIGTERM or SIGINT: resolves the database (embedded or
// configured), applies migrations, starts the loops of `role`, prints where
// it serves, then drains on the signal (stop accepting and claiming, let
// in-flight work finish up to the drain deadline, release claims). Returns
// the process exit code. Throws std::runtime_error for a start-up failure.
int RunService(const Config& config, Role role);

}  // namespace chopar::app
