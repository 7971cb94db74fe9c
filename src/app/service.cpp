#include "app/service.hpp"

#include <spdlog/spdlog.h>

#include <iostream>
#include <optional>

#include "app/channel_providers.hpp"
#include "app/database_setup.hpp"
#include "app/open_files.hpp"
#include "app/queue_depth_refresher.hpp"
#include "app/relays.hpp"
#include "app/secrets.hpp"
#include "app/service_manager.hpp"
#include "app/shared_secrets.hpp"
#include "app/shutdown_signal.hpp"
#include "broadcast/broadcast_service.hpp"
#include "broadcast/fan_out.hpp"
#include "broadcast/topic_service.hpp"
#include "channels/telegram/poller.hpp"
#include "channels/telegram/updates.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/worker.hpp"
#include "http/broadcast_routes.hpp"
#include "http/console_routes.hpp"
#include "http/outbox_routes.hpp"
#include "http/preference_routes.hpp"
#include "http/report_routes.hpp"
#include "http/schedule_routes.hpp"
#include "http/server.hpp"
#include "http/sms_routes.hpp"
#include "http/telegram_routes.hpp"
#include "http/template_routes.hpp"
#include "http/workflow_routes.hpp"
#include "http/web_routes.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_service.hpp"
#include "outbox/chopar_events.hpp"
#include "reports/job_source.hpp"
#include "reports/report_status.hpp"
#include "reports/runner.hpp"
#include "retention/history_maintenance.hpp"
#include "schedule/schedule_service.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/time_zone.hpp"
#include "workflow/engine/cancel.hpp"
#include "workflow/engine/digest_closer.hpp"
#include "workflow/engine/releaser.hpp"
#include "templates/template_store.hpp"

namespace chopar::app {
namespace {

// The API key: configured, else generated once into data_dir (only the API
// process checks it, so it needs no sharing) and announced.
std::string ApiKeyOrStored(const std::string& configured, const Config& config) {
  if (!configured.empty()) return configured;
  const StoredSecret secret = LoadOrCreateSecret(config.server.data_dir, "api_key");
  if (secret.generated) {
    std::cout << "  API key:   " << secret.value << "  (new; stored in " << secret.path.string()
              << ")\n";
  } else {
    std::cout << "  API key:   stored in " << secret.path.string() << "\n";
  }
  return secret.value;
}

// Who may read /metrics on the API port: nobody when metrics_listen serves
// it, else anyone with public_metrics, else the API key's holder.
http::MetricsAccess MetricsAccessOf(const Config::Server& server) {
  if (!server.metrics_listen.empty()) return http::MetricsAccess::kNotServed;
  return server.public_metrics ? http::MetricsAccess::kPublic : http::MetricsAccess::kApiKey;
}

// /metrics and /healthz on [server] metrics_listen, or null when it is not set.
std::unique_ptr<http::Server> StartMetricsServer(const Config& config, db::Pool& pool,
                                                 core::MetricsRegistry& metrics) {
  if (config.server.metrics_listen.empty()) return nullptr;
  http::Settings settings;
  http::ApplyListenAddress(config.server.metrics_listen, settings);
  settings.io_threads = 1;
  settings.handler_threads = 2;
  auto server = std::make_unique<http::Server>(settings, pool, metrics);
  server->Start();
  std::cout << "  metrics:   http://" << settings.host << ":" << server->port() << "/metrics\n";
  return server;
}

// Until SIGTERM or SIGINT, telling systemd's watchdog (when it watches) that
// the main thread is alive. Returns the signal.
int WaitForShutdown(const ServiceManager& service_manager) {
  const auto interval = service_manager.WatchdogInterval();
  if (!interval) return WaitForShutdownSignal();
  for (;;) {
    if (const auto signal = WaitForShutdownSignal(*interval)) return *signal;
    service_manager.Watchdog();
  }
}

}  // namespace

int RunService(const Config& config, const Roles& roles) {
  // Before anything holds a descriptor: clients, pool and providers share them.
  (void)RaiseOpenFileLimit();
  DatabaseSetup database(config);
  database.MigrateNow();
  db::PoolSettings pool_settings = database.pool_settings();
  if (!config.events.emit.empty()) {
    // The triggers read a session setting, which a transaction-mode pooler
    // cannot carry to a statement run outside a transaction
    // (docs/operations.md, "PgBouncer").
    if (pool_settings.pooling != db::ServerPooling::kNone) {
      throw std::runtime_error(
          "[events] emit needs [database] prepared_statements = true: chopar's own events are "
          "not supported behind a transaction-mode pooler (docs/operations.md)");
    }
    auto conn = db::Connection::Open(database.direct_conninfo());
    outbox::EnableChoparEvents(conn);
  }
  // chopar's own events ([events] emit) are written by triggers that read
  // the session setting this pool's connections start with.
  pool_settings.session.merge(outbox::EventSessionSettings(config.events.emit));
  db::Pool pool(pool_settings);
  core::SystemClock clock;
  // Every component of this process counts here; /metrics renders it.
  core::MetricsRegistry metrics;

  // Workers sign unsubscribe links and tell Eskiz the callback URL with
  // these; the API checks them: every process reads the same ones.
  const std::string sms_callback_secret = SharedSecret(
      pool, config.server.data_dir, "sms_callback_secret", config.sms.callback_secret);
  const std::string inbox_secret =
      SharedSecret(pool, config.server.data_dir, "inbox_secret", config.server.http.inbox_secret);
  ChannelProviders providers(config, pool, clock, sms_callback_secret, inbox_secret);
  // Types' templates: their texts for notify, their throttles for the worker.
  templates::TemplateStore template_store(pool, pool.listen_conninfo());
  delivery::Worker worker(pool, providers.set(), clock, metrics, config.delivery,
                          core::ThreadLocalRandom::Instance(), &template_store);
  QueueDepthRefresher queue_depth(pool.settings(), metrics);
  queue_depth.Start();

  // Load the time zone database once, before threads race to do it.
  (void)schedule::FindTimeZone("UTC");
  schedule::ScheduleService schedules(pool, clock);
  schedule::Scheduler scheduler(pool, clock, metrics, config.scheduler);
  hub::NotifyService notify(pool, clock, metrics, &template_store);
  // Delayed notifications (send_at) are released, and digest windows
  // closed, with the scheduler role.
  workflow::engine::Releaser releaser(pool, clock, metrics, &template_store);
  workflow::engine::DigestCloser digest_closer(pool, clock, metrics, &template_store);
  workflow::engine::Canceler canceler(pool, metrics);
  hub::UserService users(
      pool, {.allow_http_push_endpoints = config.push.webpush.allow_http_endpoints,
             .max_push_subscriptions = config.push.webpush.max_subscriptions_per_user,
             .timezone_changed = [&schedules](db::Transaction& tx, std::int64_t user_id) {
               schedules.RecomputeForUser(tx, user_id);
             }});
  // [database] read_url: the inbox's read-only queries go to a replica.
  std::optional<db::Pool> read_pool;
  if (database.read_pool_settings()) read_pool.emplace(*database.read_pool_settings());
  hub::InboxService inbox(pool, read_pool ? &*read_pool : nullptr);
  broadcast::TopicService topics(pool);
  broadcast::BroadcastService broadcasts(pool, &template_store, config.broadcast);
  broadcast::FanOut fan_out(pool, clock, metrics, config.broadcast, &template_store);
  // [[reports]]: the jobs were checked when the configuration was loaded.
  const std::vector<reports::ReportJob> report_jobs = reports::CompileReportJobs(config.reports);
  reports::JobSource report_source(pool, providers.http());
  reports::Runner report_runner(pool, report_jobs, report_source, clock, metrics);
  reports::ReportStatus report_status(pool, report_jobs, clock);
  // Partitions of the history tables ahead, and [retention]: every worker
  // process keeps them (they serialise on an advisory lock); only they
  // report its metrics.
  std::optional<retention::HistoryMaintenance> history;
  std::unique_ptr<http::Server> server;

  // The Telegram connect flow: webhook routes, or a long-polling loop.
  std::unique_ptr<channels::telegram::TelegramUpdates> telegram_updates;
  std::unique_ptr<channels::telegram::TelegramPoller> telegram_poller;
  if (providers.telegram_bot() != nullptr) {
    telegram_updates = std::make_unique<channels::telegram::TelegramUpdates>(
        *providers.telegram_bot(), pool, clock);
    if (config.telegram.updates == "polling" && roles.Has(ProcessRole::kApi)) {
      telegram_poller = std::make_unique<channels::telegram::TelegramPoller>(
          *telegram_updates, pool, providers.http(), metrics);
    }
  }

  // The relays LISTEN, so they take the direct connection.
  Relays relays(config, database.direct_conninfo(), pool, providers.http(), clock, metrics);
  // A relay-only process with nothing to relay is a configuration mistake.
  if (roles == Roles::Only(ProcessRole::kRelay) && !relays.configured()) {
    throw std::runtime_error(
        "chopar relay: no [[relay.targets]] in the configuration (docs/configuration.md)");
  }

  const bool runs_workers = roles.Has(ProcessRole::kWorker);
  const bool runs_scheduler = roles.Has(ProcessRole::kScheduler);
  const bool runs_reports = roles.Has(ProcessRole::kReports);
  const bool runs_relays = roles.Has(ProcessRole::kRelay) && relays.configured();
  std::cout << "chopar " << CHOPAR_VERSION << " running " << roles.Describe() << "\n";
  // Every role that notifies or claims reads the types' templates (texts,
  // digests, throttles, escalations).
  if (roles.Has(ProcessRole::kApi) || runs_workers || runs_scheduler || runs_reports)
    template_store.Start();
  if (roles.Has(ProcessRole::kApi)) {
    http::Settings settings = config.server.http;
    settings.metrics_access = MetricsAccessOf(config.server);
    settings.api_key = ApiKeyOrStored(settings.api_key, config);
    settings.inbox_secret = inbox_secret;
    server = std::make_unique<http::Server>(
        settings, http::Dependencies{pool, notify, users, inbox, metrics});
    http::RegisterTemplateRoutes(server->router(), template_store, users);
    http::RegisterWorkflowRoutes(server->router(), canceler);
    http::RegisterPreferenceRoutes(server->router(), users, template_store, inbox_secret);
    http::RegisterScheduleRoutes(server->router(), schedules);
    http::RegisterBroadcastRoutes(server->router(), topics, broadcasts);
    http::RegisterSmsRoutes(server->router(), pool, clock, sms_callback_secret);
    http::RegisterTelegramRoutes(server->router(), telegram_updates.get());
    http::RegisterOutboxRoutes(server->router(), relays.sources());
    http::RegisterReportRoutes(server->router(), report_status);
    http::RegisterConsoleRoutes(server->router(), pool, users,
                                config.push.webpush.vapid_public_key);
    http::RegisterWebRoutes(server->router());
    server->Start();
    std::cout << "  listening: http://" << settings.host << ":" << server->port() << "\n";
  }
  std::cout << "  database:  "
            << (database.embedded() ? "embedded PostgreSQL in " + database.location()
                                    : "configured [database] url")
            << "\n  channels:  " << providers.Describe() << "\n  relay:     " << relays.Describe()
            << std::endl;
  const std::unique_ptr<http::Server> metrics_server = StartMetricsServer(config, pool, metrics);

  if (runs_workers) worker.Start();
  if (runs_workers) {
    history.emplace(pool, clock, metrics, config.retention);
    history->Start();
    fan_out.Start();
  }
  if (runs_scheduler) scheduler.Start();
  if (runs_scheduler) releaser.Start();
  if (runs_scheduler) digest_closer.Start();
  if (runs_reports) report_runner.Start();
  if (telegram_poller) telegram_poller->Start();
  if (runs_relays) relays.Start();
  const ServiceManager service_manager;
  service_manager.Ready("running " + roles.Describe());
  const int signal = WaitForShutdown(service_manager);
  service_manager.Stopping();
  spdlog::info("signal {} received: draining", signal);
  if (server) server->Stop();
  template_store.Stop();
  if (telegram_poller) telegram_poller->Stop();
  if (runs_reports) report_runner.Stop();
  if (runs_scheduler) scheduler.Stop();
  if (runs_workers) fan_out.Stop();
  if (runs_scheduler) releaser.Stop();
  if (runs_scheduler) digest_closer.Stop();
  if (runs_workers) worker.Stop();
  if (history) history->Stop();
  if (runs_relays) relays.Stop();
  // Last, so a scrape sees the drain.
  if (metrics_server) metrics_server->Stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace chopar::app
