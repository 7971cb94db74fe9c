// The tenants of a subscriber's inbox (docs/api.md "Inbox").
#include "http/tenant_inbox_routes.hpp"

#include "core/request_error.hpp"
#include "http/message.hpp"
#include "hub/validation.hpp"

namespace chopar::http {
namespace {

struct GetInboxTenant {
  access::TenantStore& tenants;
  hub::UserService& users;
  Response operator()(const Request& request) const {
    const std::string& key = request.String("key");
    const auto not_found = [&] { return core::NotFound("tenant " + key + " not found"); };
    if (!hub::IsValidTenantKey(key) || !users.InTenant(*request.subscriber, key)) throw not_found();
    const auto tenant = tenants.Get(key);
    if (!tenant) throw not_found();
    return JsonResponse(200, {{"key", tenant->key},
                              {"name", tenant->name},
                              {"branding", nlohmann::json::parse(tenant->branding_json)}});
  }
};

}  // namespace

void RegisterTenantInboxRoutes(Router& router, access::TenantStore& tenants,
                               hub::UserService& users) {
  router.Add("GET", "/v1/inbox/tenants/{key:str}", Auth::kSubscriber,
             GetInboxTenant{tenants, users});
}

}  // namespace chopar::http
