#pragma once

#include <string>

namespace chopar::app {

struct OutboxInstallFlags {
  std::string database_url;  // the application's database
  std::string app_role;      // empty: no grants for the application
  std::string relay_role;    // empty: no grants for a relay
};

// `chopar outbox install --database-url URL [--app-role ROLE] [--relay-role
// ROLE]` (outbox::Install): prints each step and how to emit, or the reason
// it refused on stderr. Needs no configuration. Returns the exit code (1
// when refused or the database fails; nothing was changed then).
int RunOutboxInstall(const OutboxInstallFlags& flags);

}  // namespace chopar::app
