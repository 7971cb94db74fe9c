#include "app/outbox_commands.hpp"

#include <iostream>

#include "core/redact.hpp"
#include "db/connection.hpp"
#include "db/errors.hpp"
#include "outbox/install.hpp"

namespace chopar::app {

int RunOutboxInstall(const OutboxInstallFlags& flags) {
  outbox::InstallOptions options;
  if (!flags.app_role.empty()) options.app_role = flags.app_role;
  if (!flags.relay_role.empty()) options.relay_role = flags.relay_role;
  try {
    auto conn = db::Connection::Open(flags.database_url);
    for (const std::string& step : outbox::Install(conn, options))
      std::cout << "  " << step << "\n";
  } catch (const outbox::InstallError& e) {
    std::cerr << "outbox install refused: " << e.what() << "\n";
    return 1;
  } catch (const db::DbError& e) {
    std::cerr << "outbox install failed: " << core::RedactSecrets(e.what()) << "\n";
    return 1;
  }
  std::cout << "outbox installed. In the application's own transaction:\n"
               "  SELECT chopar.emit('task.created', 42, '{\"task_id\": 1}');\n"
               "then relay it: [relay] source_url = \"<this database>\" and [[relay.targets]], "
               "`chopar relay`.\n";
  return 0;
}

}  // namespace chopar::app
