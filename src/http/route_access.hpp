#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/caller.hpp"

namespace chopar::http {

// Whether a key confined to a tenant may call a route.
enum class Tenancy {
  kGlobal,  // no: the route reads or changes what belongs to no tenant (403 forbidden)
  kTenant,  // yes: the handler keeps the caller to its tenant's data
};

// What a route that needs the server's credentials demands of its caller.
struct RouteAccess {
  Scope scope;
  Tenancy tenancy = Tenancy::kGlobal;
};

// The access declared for `method` + `pattern` (the pattern as registered,
// "/v1/users/{id}") in the one table every server-credential route must be
// in (route_access.cpp, which writes patterns as docs/openapi.yaml does:
// "{key}" for a registered "{key:str}"; docs/tenants-and-access.md lists it); nullopt for a
// route that is not declared. The router refuses every credential on an
// undeclared route (fail closed) and a test fails for one.
std::optional<RouteAccess> DeclaredAccess(std::string_view method, std::string_view pattern);

// A registered pattern as docs/openapi.yaml writes it ("{key:str}" → "{key}").
std::string DocumentedPattern(std::string_view pattern);

struct DeclaredRoute {
  std::string_view method;
  std::string_view pattern;
  RouteAccess access;
};
// The whole table, in its order.
const std::vector<DeclaredRoute>& DeclaredRoutes();

}  // namespace chopar::http
