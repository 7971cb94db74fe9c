#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <iostream>

#include "app/config.hpp"
#include "app/database_setup.hpp"
#include "app/service.hpp"
#include "app/shutdown_signal.hpp"
#include "channels/webpush_vapid.hpp"

namespace chopar::app {

int RunCli(int argc, char** argv) {
  // Before any thread starts, so every thread inherits the blocked mask and
  // the main thread alone receives SIGTERM/SIGINT through sigwait.
  BlockShutdownSignals();

  CLI::App cli{"chopar — a self-hosted notification service on PostgreSQL"};
  cli.set_version_flag("--version", std::string("chopar ") + CHOPAR_VERSION);
  std::string config_path;
  cli.add_option("--config", config_path, "TOML configuration file")->check(CLI::ExistingFile);
  cli.require_subcommand(0, 1);

  auto* serve = cli.add_subcommand("serve", "HTTP API and delivery workers (the default)");
  auto* worker = cli.add_subcommand("worker", "delivery workers only");
  auto* migrate = cli.add_subcommand("migrate", "apply database migrations and exit");
  auto* vapid = cli.add_subcommand("vapid-keys", "print a new VAPID key pair for [channels.push]");
  for (auto* sub : {serve, worker, migrate}) {
    sub->add_option("--config", config_path, "TOML configuration file")->check(CLI::ExistingFile);
  }

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }

  try {
    if (vapid->parsed()) {
      const auto keys = channels::GenerateVapidKeys();
      std::cout << "[channels.push]\nvapid_public_key = \"" << keys.public_key << "\"\nvapid_private_key = \""
                << keys.private_key << "\"\n";
      return 0;
    }
    const Config config =
        LoadConfig(config_path.empty() ? std::nullopt : std::optional(std::filesystem::path(config_path)));
    if (migrate->parsed()) {
      DatabaseSetup database(config);
      std::cout << "migrations applied: " << database.MigrateNow() << "\n";
      return 0;
    }
    if (worker->parsed()) return RunService(config, Role::kWorker);
    return RunService(config, Role::kServe);
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}

}  // namespace chopar::app
