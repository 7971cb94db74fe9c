#pragma once

namespace chopar::app {

// Parses the command line and runs the chosen subcommand. Returns the process
// exit code: 0 on success, 1 on a runtime failure, 2 on a usage error.
int RunCli(int argc, char** argv);

}  // namespace chopar::app
