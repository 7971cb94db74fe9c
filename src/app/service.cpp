#include "app/service.hpp"

#include <spdlog/spdlog.h>

#include <iostream>
#include <optional>

#include "access/api_keys.hpp"
#include "access/tenants.hpp"
#include "app/api_routes.hpp"
#include "app/channel_providers.hpp"
#include "app/components.hpp"
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
#include "channels/chat/slack_app.hpp"
#include "channels/chat/whatsapp_provider.hpp"
#include "channels/telegram/poller.hpp"
#include "channels/telegram/updates.hpp"
#include "console/accounts.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "db/pool.hpp"
#include "delivery/delivery_metrics.hpp"
#include "delivery/worker.hpp"
#include "http/access_routes.hpp"
#include "http/account_routes.hpp"
#include "http/server.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_erasure.hpp"
#include "hub/user_service.hpp"
#include "outbox/chopar_events.hpp"
#include "reports/job_source.hpp"
#include "reports/report_status.hpp"
#include "reports/runner.hpp"
#include "retention/history_maintenance.hpp"
#include "schedule/schedule_service.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/time_zone.hpp"
#include "templates/template_store.hpp"
#include "workflow/engine/cancel.hpp"
#include "workflow/engine/digest_closer.hpp"
#include "workflow/engine/releaser.hpp"
#include "workflow/engine/snooze_returner.hpp"
#include "workflow/engine/step_advancer.hpp"

namespace chopar::app {
namespace {

// What the WhatsApp status webhooks check, when WhatsApp's provider is
// configured (its keys were checked when the providers were built).
channels::chat::WhatsAppWebhookSecrets WhatsAppWebhookSecretsOf(const Config& config) {
  const auto it = config.registered_channels.find("whatsapp");
  if (it == config.registered_channels.end() || it->second.provider != "cloud_api") return {};
  return channels::chat::WhatsAppWebhookSecretsFrom(it->second.values);
}

// What the SMS gateways' report routes check: the path secret, and the
// auth token of each Twilio account (the section's, or each entry's).
http::SmsReportSecrets SmsReportSecretsOf(const Config& config,
                                          const std::string& callback_secret) {
  http::SmsReportSecrets secrets{
      .callback_secret = callback_secret,
      .twilio_auth_tokens = {},
      .public_url = std::string(core::WithoutTrailingSlashes(config.server.public_url))};
  if (config.sms.provider == "twilio")
    secrets.twilio_auth_tokens.push_back(config.sms.twilio.auth_token);
  for (const auto& entry : config.sms.providers) {
    if (entry.settings.provider == "twilio") {
      secrets.twilio_auth_tokens.push_back(entry.settings.twilio.auth_token);
    }
  }
  return secrets;
}

// What the email receipt webhooks check, from [channels.email] and each
// entry of [[channels.email.providers]]; SNS's certificates and
// subscription confirmations are fetched with `http`.
http::EmailReceiptSecrets EmailReceiptSecretsOf(const Config& config, net::HttpClient& http) {
  http::EmailReceiptSecrets secrets;
  std::vector<const EmailProvider*> providers = {&config.email};
  for (const auto& entry : config.email.providers) providers.push_back(&entry.settings);
  for (const EmailProvider* p : providers) {
    const auto& r = p->receipts;
    if (!r.ses_sns_topic_arn.empty()) secrets.ses_topic_arns.push_back(r.ses_sns_topic_arn);
    if (!r.sendgrid_webhook_public_key.empty()) {
      secrets.sendgrid_public_keys.push_back(r.sendgrid_webhook_public_key);
    }
    if (!r.mailgun_webhook_signing_key.empty()) {
      secrets.mailgun_signing_keys.push_back(r.mailgun_webhook_signing_key);
    }
    if (!r.postmark_webhook_password.empty()) {
      secrets.postmark_credentials.emplace_back(r.postmark_webhook_username,
                                                r.postmark_webhook_password);
    }
  }
  secrets.fetch = [&http](const std::string& url) -> std::optional<std::string> {
    net::HttpRequest request;
    request.method = "GET";
    request.url = url;
    request.timeout = std::chrono::seconds(10);
    const net::HttpResponse response = http.Perform(request);
    if (response.status != 200) return std::nullopt;
    return response.body;
  };
  return secrets;
}

// Slack's app for its routes, when [channels.slack] configures it (its keys
// were checked when the providers were built); null otherwise.
std::unique_ptr<channels::chat::SlackApp> SlackAppOf(const Config& config, db::Pool& pool,
                                                     net::HttpClient& http) {
  const auto it = config.registered_channels.find("slack");
  if (it == config.registered_channels.end() || it->second.provider != "slack") return nullptr;
  auto settings = channels::chat::SlackAppSettingsFrom(it->second.values, config.server.public_url);
  if (!settings.configured()) return nullptr;
  return std::make_unique<channels::chat::SlackApp>(std::move(settings), pool, http);
}

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

// /metrics and /healthz on [server] metrics_listen, when it is set.
void AddMetricsServer(Components& parts, const Config& config, db::Pool& pool,
                      core::MetricsRegistry& metrics) {
  if (config.server.metrics_listen.empty()) return;
  http::Settings settings;
  http::ApplyListenAddress(config.server.metrics_listen, settings);
  settings.io_threads = 1;
  settings.handler_threads = 2;
  auto& server = parts.Emplace<http::Server>("metrics server", settings, pool, metrics);
  parts.AfterStart([&server, host = settings.host] {
    std::cout << "  metrics:   http://" << host << ":" << server.port() << "/metrics\n";
  });
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
  const std::string sms_callback_secret =
      SharedSecret(pool, config.server.data_dir, "sms_callback_secret", config.sms.callback_secret);
  const std::string inbox_secret =
      SharedSecret(pool, config.server.data_dir, "inbox_secret", config.server.http.inbox_secret);
  ChannelProviders providers(config, pool, clock, sms_callback_secret, inbox_secret, &metrics);
  // Types' templates: their texts for notify, their throttles for the worker.
  templates::TemplateStore template_store(pool, pool.listen_conninfo());
  QueueDepthRefresher queue_depth(pool.settings(), metrics);

  // Load the time zone database once, before threads race to do it.
  (void)schedule::FindTimeZone("UTC");
  // What the API's routes call; none runs on its own.
  schedule::ScheduleService schedules(pool, clock);
  hub::NotifyService notify(pool, clock, metrics, &template_store);
  workflow::engine::Canceler canceler(pool, metrics);
  hub::UserService users(
      pool, {.allow_http_push_endpoints = config.push.webpush.allow_http_endpoints,
             .max_push_subscriptions = config.push.webpush.max_subscriptions_per_user,
             .timezone_changed = [&schedules](db::Transaction& tx, std::int64_t user_id) {
               schedules.RecomputeForUser(tx, user_id);
             }});
  // [database] read_url, read_urls: the inbox's and the console's reads go
  // to hot standbys (only the API reads there).
  std::optional<db::ReadRouter> reads;
  if (database.read_router_settings() && roles.Has(ProcessRole::kApi))
    reads.emplace(pool, *database.read_router_settings(), metrics);
  hub::InboxService inbox(pool, reads ? &*reads : nullptr);
  broadcast::TopicService topics(pool);
  broadcast::BroadcastService broadcasts(pool, &template_store, config.broadcast);
  // [[reports]]: the jobs were checked when the configuration was loaded.
  const std::vector<reports::ReportJob> report_jobs = reports::CompileReportJobs(config.reports);
  reports::ReportStatus report_status(pool, report_jobs, clock);
  reports::JobSource report_source(pool, providers.http());
  // The Telegram connect flow: webhook routes, or a long-polling loop.
  std::unique_ptr<channels::telegram::TelegramUpdates> telegram_updates;
  if (providers.telegram_bot() != nullptr) {
    telegram_updates = std::make_unique<channels::telegram::TelegramUpdates>(
        *providers.telegram_bot(), pool, clock);
  }
  const std::unique_ptr<channels::chat::SlackApp> slack_app =
      SlackAppOf(config, pool, providers.http());
  // The relays LISTEN, so they take the direct connection.
  Relays relays(config, database.direct_conninfo(), pool, providers.http(), clock, metrics);
  // A relay-only process with nothing to relay is a configuration mistake.
  if (roles == Roles::Only(ProcessRole::kRelay) && !relays.configured()) {
    throw std::runtime_error(
        "chopar relay: no [[relay.targets]] in the configuration (docs/configuration.md)");
  }

  // The parts that run, for this process's roles, each after what it relies
  // on: they stop in the reverse order, the API first (no new work), then
  // what creates deliveries, then the worker's drain, then the relays that
  // carry the drain's events, and the metrics last, so a scrape sees it all.
  std::cout << "chopar " << CHOPAR_VERSION << " running " << roles.Describe() << "\n";
  // The console's accounts and sessions (API role); the server's routes
  // and its session resolver refer to it.
  std::unique_ptr<console::AccountService> accounts;
  // API keys and tenants (docs/tenants-and-access.md).
  access::ApiKeyStore api_keys(pool);
  access::TenantStore tenants(pool);
  Components parts;
  AddMetricsServer(parts, config, pool, metrics);
  parts.Add("queue depth", queue_depth);
  // Every role that notifies or claims reads the types' templates (texts,
  // digests, throttles, escalations).
  if (roles.Has(ProcessRole::kApi) || roles.Has(ProcessRole::kWorker) ||
      roles.Has(ProcessRole::kScheduler) || roles.Has(ProcessRole::kReports)) {
    parts.Add("templates", template_store);
  }
  if (roles.Has(ProcessRole::kRelay) && relays.configured()) parts.Add("relays", relays);
  if (roles.Has(ProcessRole::kWorker)) {
    // Partitions of the history tables ahead, and [retention]: every worker
    // process keeps them (they serialise on an advisory lock).
    parts.Emplace<retention::HistoryMaintenance>("history", pool, clock, metrics, config.retention);
    // Users' erasures (docs/privacy.md), in batches; any number of workers
    // share them (each batch locks its erasure, SKIP LOCKED).
    parts.Emplace<hub::UserEraser>("erasure", pool, metrics);
    parts.Emplace<delivery::Worker>("delivery worker", pool, providers.set(), clock, metrics,
                                    config.delivery, core::ThreadLocalRandom::Instance(),
                                    &template_store);
    parts.Emplace<broadcast::FanOut>("broadcast fan-out", pool, clock, metrics, config.broadcast,
                                     &template_store);
  }
  if (roles.Has(ProcessRole::kScheduler)) {
    // Delayed notifications (send_at) are released, and digest windows
    // closed, with the scheduler role.
    parts.Emplace<workflow::engine::Releaser>("releaser", pool, clock, metrics, &template_store);
    // Snoozed inbox items come back when their snooze ends.
    parts.Emplace<workflow::engine::SnoozeReturner>("snooze returner", pool, clock, metrics);
    parts.Emplace<workflow::engine::DigestCloser>("digest closer", pool, clock, metrics,
                                                  &template_store);
    // Notifications through their type's workflow steps.
    parts.Emplace<workflow::engine::StepAdvancer>("workflow steps", pool, clock, template_store,
                                                  metrics);
    parts.Emplace<schedule::Scheduler>("scheduler", pool, clock, metrics, config.scheduler);
  }
  if (roles.Has(ProcessRole::kReports)) {
    parts.Emplace<reports::Runner>("reports", pool, report_jobs, report_source, clock, metrics);
  }
  if (roles.Has(ProcessRole::kApi)) {
    if (telegram_updates && config.telegram.updates == "polling") {
      parts.Emplace<channels::telegram::TelegramPoller>("telegram poller", *telegram_updates, pool,
                                                        providers.http(), metrics);
    }
    http::Settings settings = config.server.http;
    settings.metrics_access = MetricsAccessOf(config.server);
    settings.api_key = ApiKeyOrStored(settings.api_key, config);
    settings.inbox_secret = inbox_secret;
    console::AccountSettings account_settings;
    account_settings.bootstrap_key = settings.api_key;
    accounts = std::make_unique<console::AccountService>(pool, clock, account_settings);
    auto& server = parts.Emplace<http::Server>(
        "api server", settings, http::Dependencies{pool, notify, users, inbox, metrics});
    server.AcceptCredentials(
        {.api_keys = http::ApiKeyResolver(api_keys), .sessions = http::SessionResolver(*accounts)});
    RegisterAreaRoutes(server.router(),
                       {.pool = pool,
                        .clock = clock,
                        .templates = template_store,
                        .users = users,
                        .canceler = canceler,
                        .schedules = schedules,
                        .topics = topics,
                        .broadcasts = broadcasts,
                        .reports = report_status,
                        .telegram = telegram_updates.get(),
                        .outbox_sources = relays.sources(),
                        .inbox_secret = inbox_secret,
                        .sms = SmsReportSecretsOf(config, sms_callback_secret),
                        .vapid_public_key = config.push.webpush.vapid_public_key,
                        .whatsapp = WhatsAppWebhookSecretsOf(config),
                        .slack = slack_app.get(),
                        .providers = [&providers] { return providers.Rows(); },
                        .email_receipts = EmailReceiptSecretsOf(config, providers.http()),
                        .accounts = *accounts,
                        .api_keys = api_keys,
                        .tenants = tenants,
                        .reads = reads ? &*reads : nullptr});
    parts.AfterStart([&server, host = settings.host] {
      std::cout << "  listening: http://" << host << ":" << server.port() << "\n";
    });
  }

  std::cout << "  database:  "
            << (database.embedded() ? "embedded PostgreSQL in " + database.location()
                                    : "configured [database] url")
            << "\n  channels:  " << providers.Describe() << "\n  relay:     " << relays.Describe()
            << std::endl;
  parts.StartAll();
  const ServiceManager service_manager;
  service_manager.Ready("running " + roles.Describe());
  const int signal = WaitForShutdown(service_manager);
  // [delivery] drain_seconds counts from the signal.
  const auto deadline = Components::Clock::now() + config.delivery.drain_deadline;
  service_manager.Stopping();
  spdlog::info("signal {} received: draining", signal);
  parts.StopAll(deadline);
  spdlog::info("stopped");
  return 0;
}

}  // namespace chopar::app
