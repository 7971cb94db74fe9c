#pragma once

#include "access/tenants.hpp"
#include "http/router.hpp"
#include "hub/user_service.hpp"

namespace chopar::http {

// GET /v1/inbox/tenants/{key} (subscriber token): a tenant the token's
// user belongs to, {key, name, branding}, so that the bell can show it; a
// tenant the user does not belong to is 404 not_found, as one that does
// not exist. The stores must outlive the router.
void RegisterTenantInboxRoutes(Router& router, access::TenantStore& tenants,
                               hub::UserService& users);

}  // namespace chopar::http
