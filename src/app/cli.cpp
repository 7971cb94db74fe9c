#include "app/cli.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/api_routes.hpp"
#include "app/config.hpp"
#include "app/database_setup.hpp"
#include "app/logging.hpp"
#include "app/outbox_commands.hpp"
#include "app/schedule_commands.hpp"
#include "app/service.hpp"
#include "app/shutdown_signal.hpp"
#include "app/template_commands.hpp"
#include "app/user_commands.hpp"
#include "app/user_import_command.hpp"
#include "channels/chat/chat_channels.hpp"
#include "channels/mobile/mobile_provider.hpp"
#include "channels/webpush/vapid.hpp"
#include "db/actor.hpp"

namespace chopar::app {
namespace {

// The audit log's actor of a command run from the command line: "cli",
// named by the operating system's user.
std::string CommandLineActor() {
  const char* user = std::getenv("USER");
  return nlohmann::json{{"actor", "cli"}, {"name", user != nullptr ? user : ""}}.dump();
}

}  // namespace

int RunCli(int argc, char** argv) {
  // Before any thread starts, so every thread inherits the blocked mask and
  // the main thread alone receives SIGTERM/SIGINT through sigwait.
  BlockShutdownSignals();
  // Before anything reads the channels (the configuration's sections, the
  // database's channel kinds, the routes).
  channels::mobile::RegisterMobileChannel();
  channels::chat::RegisterChatChannels();

  CLI::App cli{"chopar — a self-hosted notification service on PostgreSQL"};
  cli.set_version_flag("--version", std::string("chopar ") + CHOPAR_VERSION);
  std::string config_path;
  cli.add_option("--config", config_path, "TOML configuration file")->check(CLI::ExistingFile);
  cli.require_subcommand(0, 1);

  auto* serve =
      cli.add_subcommand("serve", "the roles of [server] roles: all by default (the default)");
  auto* worker = cli.add_subcommand("worker", "delivery workers only (roles = [\"worker\"])");
  auto* migrate = cli.add_subcommand("migrate", "apply database migrations and exit");
  auto* scheduler = cli.add_subcommand("scheduler",
                                       "the schedule firing loop and the report jobs (roles = "
                                       "[\"scheduler\", \"reports\"])");
  auto* relay = cli.add_subcommand(
      "relay", "the outbox relays only ([relay] and its [[relay.targets]]; roles = [\"relay\"])");
  auto* outbox =
      cli.add_subcommand("outbox", "the transactional outbox in an application's database");
  outbox->require_subcommand(1);
  auto* outbox_install = outbox->add_subcommand(
      "install", "install chopar.outbox, chopar.inbox and chopar.emit; grant roles");
  OutboxInstallFlags install_flags;
  outbox_install
      ->add_option("--database-url", install_flags.database_url, "the application's database")
      ->required();
  outbox_install->add_option("--app-role", install_flags.app_role,
                             "may call chopar.emit and INSERT events, nothing else");
  outbox_install->add_option("--relay-role", install_flags.relay_role,
                             "may read, mark and delete events");
  auto* vapid = cli.add_subcommand("vapid-keys", "print a new VAPID key pair for [channels.push]");
  auto* routes = cli.add_subcommand(
      "routes", "print every HTTP route the API serves, \"METHOD /path/{param}\" a line");
  bool routes_access = false;
  routes->add_flag("--access", routes_access,
                   "end each line with who may call it: public, subscriber, "
                   "\"<scope> global|tenant\" or undeclared");

  auto* cron =
      cli.add_subcommand("cron", "print the next fire times of a cron pattern in a time zone");
  std::string cron_pattern, cron_timezone = "UTC", cron_after;
  int cron_count = 5;
  cron->add_option("pattern", cron_pattern, "5-field cron pattern or @daily, …")->required();
  cron->add_option("--timezone", cron_timezone, "IANA time zone")->capture_default_str();
  cron->add_option("--after", cron_after, "RFC 3339 instant (default: now)");
  cron->add_option("--count", cron_count, "how many (1..1000)")->capture_default_str();

  auto* schedules = cli.add_subcommand("schedules", "manage schedules");
  schedules->require_subcommand(1);
  auto* import = schedules->add_subcommand(
      "import", "load schedules from a CSV (key,user_id,cron or HH:MM,timezone)");
  ImportFlags import_flags;
  import->add_option("file", import_flags.file, "CSV file")->required()->check(CLI::ExistingFile);
  import->add_option("--type", import_flags.type, "notification type of rows without one")
      ->capture_default_str();
  import->add_option("--title", import_flags.title, "notification title of rows without one")
      ->capture_default_str();
  import->add_option("--body", import_flags.body, "notification body of rows without one");

  auto* users = cli.add_subcommand(
      "users", "manage console accounts; import the users notifications are for");
  users->require_subcommand(1);
  auto* users_add = users->add_subcommand("add", "add a console account");
  UserAddFlags user_add_flags;
  users_add->add_option("--email", user_add_flags.email, "the account's email")->required();
  users_add->add_option("--role", user_add_flags.role, "admin, operator or viewer")->required();
  users_add->add_flag("--password-stdin", user_add_flags.password_stdin,
                      "read the password from stdin's first line (else one is generated and "
                      "printed once)");
  auto* users_list = users->add_subcommand("list", "list console accounts");
  auto* users_delete = users->add_subcommand("delete", "delete a console account and its sessions");
  std::string user_delete_email;
  users_delete->add_option("--email", user_delete_email, "the account's email")->required();
  auto* users_import = users->add_subcommand(
      "import",
      "create or merge users from a CSV (a header row: id,email,phone,timezone,locale,…,"
      "data.<key>) or NDJSON file (a PUT /v1/users/{id} body with \"id\" a line)");
  UserImportFlags user_import_flags;
  users_import->add_option("file", user_import_flags.file, "the file, or - for stdin")->required();
  users_import->add_option("--format", user_import_flags.format,
                           "csv or ndjson (default: from the file's extension)");
  users_import->add_option("--batch", user_import_flags.batch, "lines per statement")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));

  auto* templates_command = cli.add_subcommand(
      "templates", "copy templates, layouts and partials between a database and a folder");
  templates_command->require_subcommand(1);
  std::string templates_dir;
  auto* templates_export = templates_command->add_subcommand(
      "export",
      "write every live template, layout and partial into DIR, one pretty-printed JSON file "
      "each (DIR/templates/<type>.json, DIR/tenants/<tenant>/templates/<type>.json, …), for "
      "review in git; files of documents no longer live are removed");
  templates_export->add_option("dir", templates_dir, "the folder (made if missing)")->required();
  auto* templates_import = templates_command->add_subcommand(
      "import",
      "store the files of DIR (as export writes them) as PUT does: layouts, partials, then "
      "templates; every file is checked first and with any bad one nothing is written; prints "
      "created, updated or unchanged for each; deletes nothing");
  templates_import->add_option("dir", templates_dir, "the folder")->required();

  for (auto* sub : {serve, worker, scheduler, relay, migrate, import, users_add, users_list,
                    users_delete, users_import, templates_export, templates_import}) {
    sub->add_option("--config", config_path, "TOML configuration file")->check(CLI::ExistingFile);
  }

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }

  try {
    if (vapid->parsed()) {
      const auto keys = channels::webpush::GenerateVapidKeys();
      std::cout << "[channels.push]\nvapid_public_key = \"" << keys.public_key
                << "\"\nvapid_private_key = \"" << keys.private_key << "\"\n";
      return 0;
    }
    if (routes->parsed()) return PrintRoutes(std::cout, routes_access);
    if (cron->parsed()) return RunCronPreview(cron_pattern, cron_timezone, cron_after, cron_count);
    if (outbox_install->parsed()) return RunOutboxInstall(install_flags);
    // Until [log] is read: text lines, already with credentials redacted.
    spdlog::set_formatter(MakeLogFormatter("text"));
    const Environment environment = ProcessEnvironment();
    const Config config = LoadConfig(
        config_path.empty() ? std::nullopt : std::optional(std::filesystem::path(config_path)),
        environment);
    const auto spdlog_level = environment.find("SPDLOG_LEVEL");
    ConfigureLogging(config.log, spdlog_level == environment.end() ? "" : spdlog_level->second);
    if (migrate->parsed()) {
      DatabaseSetup database(config);
      const int applied = database.MigrateNow();
      std::cout << "migrations applied: " << applied << "\n";
      return 0;
    }
    // A subcommand of one role is a shorthand for serve with only that role.
    if (worker->parsed()) return RunService(config, Roles::Only(ProcessRole::kWorker));
    if (scheduler->parsed()) return RunService(config, Roles::FromNames({"scheduler", "reports"}));
    if (relay->parsed()) return RunService(config, Roles::Only(ProcessRole::kRelay));
    {
      // What these commands change is the audit log's, by "cli".
      const db::ActorScope cli_actor(CommandLineActor());
      if (import->parsed()) return RunScheduleImport(config, import_flags);
      if (users_add->parsed()) {
        return RunUserAdd(config, user_add_flags, std::cin, std::cout, std::cerr);
      }
      if (users_list->parsed()) return RunUserList(config, std::cout);
      if (users_import->parsed()) {
        return RunUserImport(config, user_import_flags, std::cin, std::cout, std::cerr);
      }
      if (users_delete->parsed()) {
        return RunUserDelete(config, user_delete_email, std::cout, std::cerr);
      }
      if (templates_export->parsed()) {
        return RunTemplatesExport(config, templates_dir, std::cout, std::cerr);
      }
      if (templates_import->parsed()) {
        return RunTemplatesImport(config, templates_dir, std::cout, std::cerr);
      }
    }
    return RunService(config, Roles::FromNames(config.server.roles));
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}

}  // namespace chopar::app
