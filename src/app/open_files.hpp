#pragma once

#include <cstdint>

namespace chopar::app {

// Raises this process's soft limit on open files (RLIMIT_NOFILE) to its hard
// limit. Every client connection and stream, pooled database connection and
// provider call holds a descriptor, and shells and container runtimes often
// start processes with a soft limit of 1024 under a hard one far higher.
// Returns the soft limit in force afterwards (UINT64_MAX for unlimited). A
// refusal is logged, never thrown; thread-safe (call once, at start).
std::uint64_t RaiseOpenFileLimit();

}  // namespace chopar::app
