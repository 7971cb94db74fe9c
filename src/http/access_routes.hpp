#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "access/api_keys.hpp"
#include "access/tenants.hpp"
#include "db/pool.hpp"
#include "http/caller.hpp"
#include "http/router.hpp"

namespace chopar::http {

// Tenants, API keys and the audit log (docs/tenants-and-access.md):
//   POST/GET /v1/api-keys, DELETE /v1/api-keys/{id},
//   PUT/GET/DELETE /v1/tenants/{key}, GET /v1/tenants,
//   GET /v1/audit.
void RegisterAccessRoutes(Router& router, db::Pool& pool, access::ApiKeyStore& keys,
                          access::TenantStore& tenants);

// The caller of a stored API key.
Caller CallerOfKey(const access::ApiKey& key);
// AuthKeys::resolvers.api_keys of `keys`.
std::function<std::optional<Caller>(std::string_view)> ApiKeyResolver(access::ApiKeyStore& keys);

}  // namespace chopar::http
