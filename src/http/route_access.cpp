#include "http/route_access.hpp"

#include <string>

namespace chopar::http {
namespace {

constexpr Tenancy kGlobal = Tenancy::kGlobal;
constexpr Tenancy kTenant = Tenancy::kTenant;

// Every route that needs the server's credentials, with the scope it needs.
// A route missing here is refused to every caller, and RouteAccessTest
// fails for it: adding a route means deciding who may call it.
std::vector<DeclaredRoute> Table() {
  using enum Scope;
  return {
      // Notifications and broadcasts: what an application sends.
      {"POST", "/v1/notifications", {kNotify, kTenant}},
      {"POST", "/v1/notifications/batch", {kNotify, kTenant}},
      {"POST", "/v1/broadcasts", {kNotify, kTenant}},
      {"POST", "/v1/notifications/cancel", {kManage, kGlobal}},
      {"GET", "/v1/notifications/{id}", {kRead, kTenant}},
      {"GET", "/v1/deliveries", {kRead, kGlobal}},
      {"GET", "/v1/broadcasts/{id}", {kRead, kGlobal}},
      // What an operator does to a delivery or a broadcast in flight.
      {"POST", "/v1/deliveries/{id}/retry", {kOperate, kGlobal}},
      {"POST", "/v1/broadcasts/{id}/cancel", {kOperate, kGlobal}},
      // Users, their addresses, devices, preferences and inboxes.
      {"GET", "/v1/users", {kRead, kGlobal}},
      {"PUT", "/v1/users/{id}", {kManage, kTenant}},
      {"POST", "/v1/users/import", {kManage, kGlobal}},
      {"GET", "/v1/users/{id}", {kRead, kTenant}},
      // Erasure (docs/privacy.md): what PUT may do, a key confined to a
      // tenant for its own users only.
      {"DELETE", "/v1/users/{id}", {kManage, kTenant}},
      {"POST", "/v1/users/erase", {kManage, kTenant}},
      {"GET", "/v1/users/{id}/erasure", {kRead, kTenant}},
      // Everything about a user, across every tenant it belongs to, with
      // the audit log's record of the changes to it.
      {"GET", "/v1/users/{id}/export", {kManage, kGlobal}},
      {"PUT", "/v1/users/{id}/telegram", {kManage, kGlobal}},
      {"DELETE", "/v1/users/{id}/telegram", {kManage, kGlobal}},
      {"GET", "/v1/users/{id}/telegram/link", {kRead, kGlobal}},
      {"POST", "/v1/users/{id}/push-subscriptions", {kManage, kGlobal}},
      {"GET", "/v1/users/{id}/push-subscriptions", {kRead, kGlobal}},
      {"DELETE", "/v1/users/{id}/push-subscriptions/{sub_id}", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/devices", {kManage, kGlobal}},
      {"GET", "/v1/users/{id}/devices", {kRead, kGlobal}},
      {"DELETE", "/v1/users/{id}/devices/{device_id}", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/slack/connect", {kManage, kGlobal}},
      // A subscriber token opens the user's inbox: reading it is the
      // application's backend rendering the bell.
      {"GET", "/v1/users/{id}/token", {kRead, kGlobal}},
      {"POST", "/v1/users/{id}/token/revoke", {kManage, kGlobal}},
      {"GET", "/v1/users/{id}/notifications", {kRead, kTenant}},
      {"GET", "/v1/users/{id}/notifications/unread-count", {kRead, kTenant}},
      {"POST", "/v1/users/{id}/notifications/read", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/seen", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/unread", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/archive", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/unarchive", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/snooze", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/unsnooze", {kManage, kGlobal}},
      {"POST", "/v1/users/{id}/notifications/{notification_id}/actions/{n}", {kManage, kGlobal}},
      // Templates and workflows.
      {"GET", "/v1/templates", {kRead, kTenant}},
      {"GET", "/v1/templates/{type}", {kRead, kTenant}},
      {"PUT", "/v1/templates/{type}", {kManage, kTenant}},
      {"DELETE", "/v1/templates/{type}", {kManage, kTenant}},
      {"POST", "/v1/templates/preview", {kRead, kGlobal}},
      // A template's versions and draft: reading them is reading the
      // template, changing them (a draft too) is managing it.
      {"GET", "/v1/templates/{type}/versions", {kRead, kTenant}},
      {"GET", "/v1/templates/{type}/versions/{n}", {kRead, kTenant}},
      {"POST", "/v1/templates/{type}/versions/{n}/restore", {kManage, kTenant}},
      {"PUT", "/v1/templates/{type}/draft", {kManage, kTenant}},
      {"GET", "/v1/templates/{type}/draft", {kRead, kTenant}},
      {"DELETE", "/v1/templates/{type}/draft", {kManage, kTenant}},
      {"POST", "/v1/templates/{type}/publish", {kManage, kTenant}},
      // Email layouts and partials: a tenant's own, or (unconfined) the
      // global ones, as templates.
      {"GET", "/v1/layouts", {kRead, kTenant}},
      {"GET", "/v1/layouts/{key}", {kRead, kTenant}},
      {"PUT", "/v1/layouts/{key}", {kManage, kTenant}},
      {"DELETE", "/v1/layouts/{key}", {kManage, kTenant}},
      {"GET", "/v1/partials", {kRead, kTenant}},
      {"GET", "/v1/partials/{key}", {kRead, kTenant}},
      {"PUT", "/v1/partials/{key}", {kManage, kTenant}},
      {"DELETE", "/v1/partials/{key}", {kManage, kTenant}},
      // Their versions and drafts, as a template's.
      {"GET", "/v1/layouts/{key}/versions", {kRead, kTenant}},
      {"GET", "/v1/layouts/{key}/versions/{n}", {kRead, kTenant}},
      {"POST", "/v1/layouts/{key}/versions/{n}/restore", {kManage, kTenant}},
      {"PUT", "/v1/layouts/{key}/draft", {kManage, kTenant}},
      {"GET", "/v1/layouts/{key}/draft", {kRead, kTenant}},
      {"DELETE", "/v1/layouts/{key}/draft", {kManage, kTenant}},
      {"POST", "/v1/layouts/{key}/publish", {kManage, kTenant}},
      {"GET", "/v1/partials/{key}/versions", {kRead, kTenant}},
      {"GET", "/v1/partials/{key}/versions/{n}", {kRead, kTenant}},
      {"POST", "/v1/partials/{key}/versions/{n}/restore", {kManage, kTenant}},
      {"PUT", "/v1/partials/{key}/draft", {kManage, kTenant}},
      {"GET", "/v1/partials/{key}/draft", {kRead, kTenant}},
      {"DELETE", "/v1/partials/{key}/draft", {kManage, kTenant}},
      {"POST", "/v1/partials/{key}/publish", {kManage, kTenant}},
      // Topics.
      {"PUT", "/v1/topics/{key}", {kManage, kTenant}},
      {"DELETE", "/v1/topics/{key}", {kManage, kTenant}},
      {"GET", "/v1/topics/{key}/subscribers", {kRead, kTenant}},
      {"PUT", "/v1/topics/{key}/subscribers", {kManage, kTenant}},
      {"DELETE", "/v1/topics/{key}/subscribers", {kManage, kTenant}},
      // Schedules.
      {"GET", "/v1/schedules", {kRead, kGlobal}},
      {"PUT", "/v1/schedules", {kManage, kGlobal}},
      {"GET", "/v1/schedules/{key}", {kRead, kGlobal}},
      {"PUT", "/v1/schedules/{key}", {kManage, kGlobal}},
      {"DELETE", "/v1/schedules/{key}", {kManage, kGlobal}},
      {"POST", "/v1/schedules/preview", {kRead, kGlobal}},
      // Channels, providers and what the deployment observes.
      {"GET", "/v1/providers", {kRead, kGlobal}},
      {"GET", "/v1/suppressions", {kRead, kGlobal}},
      {"DELETE", "/v1/suppressions/{channel}/{address}", {kManage, kGlobal}},
      {"GET", "/v1/slack/install", {kAdmin, kGlobal}},
      {"GET", "/v1/slack/workspaces", {kRead, kGlobal}},
      {"DELETE", "/v1/slack/workspaces/{team_id}", {kAdmin, kGlobal}},
      {"GET", "/v1/outbox/stats", {kRead, kGlobal}},
      {"GET", "/v1/reports", {kRead, kGlobal}},
      {"GET", "/v1/sink/messages", {kRead, kGlobal}},
      {"GET", "/v1/stats/deliveries", {kRead, kGlobal}},
      {"GET", "/v1/stats/overview", {kRead, kGlobal}},
      {"GET", "/metrics", {kRead, kGlobal}},
      // Access itself.
      {"POST", "/v1/api-keys", {kAdmin, kGlobal}},
      {"GET", "/v1/api-keys", {kAdmin, kGlobal}},
      {"DELETE", "/v1/api-keys/{id}", {kAdmin, kGlobal}},
      {"GET", "/v1/tenants", {kAdmin, kGlobal}},
      {"PUT", "/v1/tenants/{key}", {kAdmin, kGlobal}},
      {"GET", "/v1/tenants/{key}", {kAdmin, kGlobal}},
      {"DELETE", "/v1/tenants/{key}", {kAdmin, kGlobal}},
      {"GET", "/v1/audit", {kAdmin, kGlobal}},
      // The console's own session (any role), and its accounts (admins).
      {"GET", "/v1/console/session", {kRead, kGlobal}},
      {"POST", "/v1/console/sign-out", {kRead, kGlobal}},
      {"GET", "/v1/console/accounts", {kAdmin, kGlobal}},
      {"POST", "/v1/console/accounts", {kAdmin, kGlobal}},
      {"PATCH", "/v1/console/accounts/{id}", {kAdmin, kGlobal}},
      {"DELETE", "/v1/console/accounts/{id}", {kAdmin, kGlobal}},
      {"GET", "/v1/console/sessions", {kAdmin, kGlobal}},
      {"POST", "/v1/console/sessions/{id}/revoke", {kAdmin, kGlobal}},
  };
}

}  // namespace

const std::vector<DeclaredRoute>& DeclaredRoutes() {
  static const std::vector<DeclaredRoute> kTable = Table();
  return kTable;
}

std::string DocumentedPattern(std::string_view pattern) {
  std::string documented(pattern);
  for (auto at = documented.find(":str}"); at != std::string::npos;
       at = documented.find(":str}", at)) {
    documented.erase(at, 4);
  }
  return documented;
}

std::optional<RouteAccess> DeclaredAccess(std::string_view method, std::string_view pattern) {
  const std::string documented = DocumentedPattern(pattern);
  for (const DeclaredRoute& route : DeclaredRoutes()) {
    if (route.method == method && route.pattern == documented) return route.access;
  }
  return std::nullopt;
}

}  // namespace chopar::http
