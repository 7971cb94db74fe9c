#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "access/api_keys.hpp"
#include "access/tenants.hpp"
#include "broadcast/broadcast_service.hpp"
#include "broadcast/topic_service.hpp"
#include "channels/chat/slack_app.hpp"
#include "channels/chat/whatsapp_provider.hpp"
#include "channels/telegram/updates.hpp"
#include "console/accounts.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "db/read_router.hpp"
#include "http/email_receipt_routes.hpp"
#include "http/provider_routes.hpp"
#include "http/router.hpp"
#include "http/sms_routes.hpp"
#include "hub/user_service.hpp"
#include "outbox/outbox_stats.hpp"
#include "reports/report_status.hpp"
#include "schedule/schedule_service.hpp"
#include "templates/template_store.hpp"
#include "workflow/engine/cancel.hpp"

namespace chopar::app {

// What the API's routes beyond http::RegisterApiRoutes (which http::Server
// registers itself) call. The references must outlive the router.
struct AreaRouteParts {
  db::Pool& pool;
  const core::Clock& clock;
  templates::TemplateStore& templates;
  hub::UserService& users;
  workflow::engine::Canceler& canceler;
  schedule::ScheduleService& schedules;
  broadcast::TopicService& topics;
  broadcast::BroadcastService& broadcasts;
  const reports::ReportStatus& reports;
  // Null: Telegram is not configured (its routes answer 503).
  channels::telegram::TelegramUpdates* telegram;
  std::vector<outbox::OutboxSource> outbox_sources;
  std::string inbox_secret;
  // The SMS gateways' report secrets (callback_secret, Twilio's tokens).
  http::SmsReportSecrets sms;
  std::string vapid_public_key;  // empty: Web Push is not configured
  // Empty: WhatsApp's status webhooks are not configured (they answer 503).
  channels::chat::WhatsAppWebhookSecrets whatsapp;
  // Null: Slack's app is not configured (its routes answer 503).
  channels::chat::SlackApp* slack;
  // Every channel's providers (GET /v1/providers); empty: none listed.
  http::ProviderRows providers;
  // The email providers' receipt webhooks' secrets; empty: they answer 503.
  http::EmailReceiptSecrets email_receipts;
  // Console accounts and their sessions (the console's sign-in).
  console::AccountService& accounts;
  // API keys and tenants (docs/tenants-and-access.md).
  access::ApiKeyStore& api_keys;
  access::TenantStore& tenants;
  // Where the console's lists and stats read ([database] read_urls); null: pool.
  db::ReadRouter* reads = nullptr;
};

// Registers every route of the areas (templates, workflows, preferences,
// schedules, broadcasts, SMS, Telegram and WhatsApp webhooks, Slack's app, outbox stats, reports,
// console, channels, the embedded web assets) on `router`: the API process
// calls it on its server's router, `chopar routes` on one it only prints.
// Throws std::invalid_argument if a route is already there.
void RegisterAreaRoutes(http::Router& router, const AreaRouteParts& parts);

// `chopar routes`: prints every route an API process registers, one
// "METHOD /path/{param}" a line, sorted, parameters written as OpenAPI
// writes them (`{name:str}` → `{name}`); /metrics included (served with the
// API key unless [server] says otherwise). Builds the same parts as the
// service on a pool that never connects: nothing reaches a database or the
// network. With `with_access`, each line ends with who may call the route:
// "public", "subscriber", "<scope> global|tenant" (http/route_access.hpp)
// or "undeclared" (a route no credential may call). Returns 0.
int PrintRoutes(std::ostream& out, bool with_access = false);

}  // namespace chopar::app
