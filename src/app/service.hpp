#pragma once

#include "app/config.hpp"
#include "app/roles.hpp"

namespace chopar::app {

// Runs chopar until SIGTERM or SIGINT: resolves the database (embedded or
// configured), applies migrations, starts what `roles` names (the API, the
// delivery loops, the scheduler), serves /metrics and /healthz on [server]
// metrics_listen when that is set, prints where it serves, tells systemd it
// is ready, then drains on the signal (stop accepting and claiming, let
// in-flight work finish up to the drain deadline, release claims). Returns
// the process exit code. Throws std::runtime_error for a start-up failure.
int RunService(const Config& config, const Roles& roles);

}  // namespace chopar::app
