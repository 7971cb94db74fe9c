#include "app/api_routes.hpp"

#include <algorithm>

#include "core/metrics.hpp"
#include "http/access_routes.hpp"
#include "http/account_routes.hpp"
#include "http/broadcast_routes.hpp"
#include "http/channel_routes.hpp"
#include "http/console_routes.hpp"
#include "http/device_routes.hpp"
#include "http/fragment_routes.hpp"
#include "http/outbox_routes.hpp"
#include "http/preference_routes.hpp"
#include "http/report_routes.hpp"
#include "http/schedule_routes.hpp"
#include "http/server.hpp"
#include "http/slack_routes.hpp"
#include "http/sms_routes.hpp"
#include "http/suppression_routes.hpp"
#include "http/telegram_routes.hpp"
#include "http/template_routes.hpp"
#include "http/tenant_inbox_routes.hpp"
#include "http/version_routes.hpp"
#include "http/web_routes.hpp"
#include "http/whatsapp_routes.hpp"
#include "http/workflow_routes.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"

namespace chopar::app {
namespace {

// "/v1/users/{id}/push-subscriptions/{endpoint:str}" → "…/{endpoint}".
std::string OpenApiPath(const http::Route& route) {
  std::string path;
  for (const auto& segment : route.segments) {
    path += '/';
    path += segment.kind == http::Route::Segment::Kind::kLiteral ? segment.text
                                                                 : "{" + segment.text + "}";
  }
  return path.empty() ? "/" : path;
}

// What `chopar routes --access` prints after a route: "public",
// "subscriber", "<scope> global|tenant", or "undeclared".
std::string AccessLabel(const http::Route& route) {
  switch (route.auth) {
    case http::Auth::kNone:
      return "public";
    case http::Auth::kSubscriber:
      return "subscriber";
    case http::Auth::kServerKey:
      break;
  }
  if (!route.access) return "undeclared";
  return std::string(http::ScopeName(route.access->scope)) +
         (route.access->tenancy == http::Tenancy::kTenant ? " tenant" : " global");
}

}  // namespace

void RegisterAreaRoutes(http::Router& router, const AreaRouteParts& parts) {
  http::RegisterTemplateRoutes(router, parts.templates, parts.users);
  http::RegisterTemplateVersionRoutes(router, parts.templates);
  http::RegisterFragmentVersionRoutes(router, parts.templates);
  http::RegisterFragmentRoutes(router, parts.templates);
  http::RegisterWorkflowRoutes(router, parts.canceler);
  http::RegisterPreferenceRoutes(router, parts.users, parts.templates, parts.inbox_secret);
  http::RegisterScheduleRoutes(router, parts.schedules);
  http::RegisterBroadcastRoutes(router, parts.topics, parts.broadcasts);
  http::RegisterSmsRoutes(router, parts.pool, parts.clock, parts.sms);
  http::RegisterTelegramRoutes(router, parts.telegram);
  http::RegisterDeviceRoutes(router, parts.pool);
  http::RegisterWhatsAppRoutes(router, parts.pool, parts.clock, parts.whatsapp);
  http::RegisterSlackRoutes(router, parts.slack, parts.clock);
  http::RegisterOutboxRoutes(router, parts.outbox_sources);
  http::RegisterReportRoutes(router, parts.reports);
  http::RegisterConsoleRoutes(router, parts.pool, parts.users, parts.vapid_public_key, parts.reads);
  http::RegisterChannelRoutes(router);
  http::RegisterProviderRoutes(router, parts.providers, parts.clock);
  http::RegisterSuppressionRoutes(router, parts.pool);
  http::RegisterEmailReceiptRoutes(router, parts.pool, parts.users, parts.clock,
                                   parts.email_receipts);
  http::RegisterAccountRoutes(router, parts.accounts);
  http::RegisterAccessRoutes(router, parts.pool, parts.api_keys, parts.tenants);
  http::RegisterTenantInboxRoutes(router, parts.tenants, parts.users);
  http::RegisterWebRoutes(router);
}

int PrintRoutes(std::ostream& out, bool with_access) {
  // A pool connects on its first Acquire(), which no registration does.
  db::PoolSettings pool_settings;
  pool_settings.conninfo = "host=/nonexistent dbname=routes";
  db::Pool pool(pool_settings);
  core::SystemClock clock;
  core::MetricsRegistry metrics;
  templates::TemplateStore template_store(pool, pool.listen_conninfo());
  schedule::ScheduleService schedules(pool, clock);
  hub::NotifyService notify(pool, clock, metrics, &template_store);
  workflow::engine::Canceler canceler(pool, metrics);
  hub::UserService users(pool, {});
  hub::InboxService inbox(pool);
  broadcast::TopicService topics(pool);
  broadcast::BroadcastService broadcasts(pool, &template_store);
  reports::ReportStatus report_status(pool, {}, clock);
  console::AccountService accounts(pool, clock);
  access::ApiKeyStore api_keys(pool);
  access::TenantStore tenants(pool);

  http::Settings settings;
  settings.metrics_access = http::MetricsAccess::kApiKey;
  settings.api_key = "routes";
  settings.inbox_secret = "routes";
  http::Server server(settings, http::Dependencies{pool, notify, users, inbox, metrics});
  RegisterAreaRoutes(server.router(), {.pool = pool,
                                       .clock = clock,
                                       .templates = template_store,
                                       .users = users,
                                       .canceler = canceler,
                                       .schedules = schedules,
                                       .topics = topics,
                                       .broadcasts = broadcasts,
                                       .reports = report_status,
                                       .telegram = nullptr,
                                       .outbox_sources = {},
                                       .inbox_secret = "routes",
                                       .sms = {.callback_secret = "routes",
                                               .twilio_auth_tokens = {"routes"},
                                               .public_url = "http://127.0.0.1"},
                                       .vapid_public_key = "",
                                       .whatsapp = {},
                                       .slack = nullptr,
                                       .providers = {},
                                       .email_receipts = {},
                                       .accounts = accounts,
                                       .api_keys = api_keys,
                                       .tenants = tenants});
  std::vector<std::string> lines;
  for (const http::Route& route : server.router().routes()) {
    lines.push_back(route.method + " " + OpenApiPath(route) +
                    (with_access ? " " + AccessLabel(route) : ""));
  }
  std::sort(lines.begin(), lines.end());
  for (const auto& line : lines) out << line << "\n";
  return 0;
}

}  // namespace chopar::app
