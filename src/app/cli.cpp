#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <iostream>

#include "app/config.hpp"
#include "app/database_setup.hpp"
#include "db/migrate.hpp"

namespace chopar::app {

int RunCli(int argc, char** argv) {
  CLI::App cli{"chopar — a self-hosted notification service on PostgreSQL"};
  cli.set_version_flag("--version", std::string("chopar ") + CHOPAR_VERSION);
  std::string config_path;
  cli.add_option("--config", config_path, "TOML configuration file")->check(CLI::ExistingFile);
  cli.require_subcommand(0, 1);

  auto* migrate = cli.add_subcommand("migrate", "apply database migrations and exit");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }

  try {
    const Config config = LoadConfig(config_path.empty() ? std::nullopt : std::optional(std::filesystem::path(config_path)));
    if (migrate->parsed()) {
      DatabaseSetup database(config);
      auto conn = db::Connection::Open(database.conninfo());
      const int applied = db::Migrate(conn);
      std::cout << "migrations applied: " << applied << "\n";
      return 0;
    }
    std::cout << cli.help();
    return 0;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}

}  // namespace chopar::app
