#pragma once

#include <chrono>
#include <optional>

namespace chopar::app {

// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts
// afterwards; call first thing in main, before any thread exists.
void BlockShutdownSignals();

// Waits until SIGTERM or SIGINT arrives; returns the signal number.
int WaitForShutdownSignal();
// The same, for at most `timeout`: nullopt when no signal came.
std::optional<int> WaitForShutdownSignal(std::chrono::milliseconds timeout);

}  // namespace chopar::app
