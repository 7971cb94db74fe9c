#pragma once

#include <string>
#include <vector>

namespace chopar::core {

// Runs argv[0] (looked up in PATH) with the given arguments, waits for it and
// returns its exit status (128 + signal if it was killed). Output goes to this
// process's stdout/stderr. With `new_session`, the child (and any daemon it
// leaves behind) gets its own session, so a Ctrl-C at the terminal does not
// reach it. Throws std::runtime_error if it cannot be started.
int RunProcess(const std::vector<std::string>& argv, bool new_session = false);

}  // namespace chopar::core
