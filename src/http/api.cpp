#include "http/api.hpp"

#include "http/openapi_route.hpp"

namespace chopar::http {

void RegisterApiRoutes(Router& router, const Dependencies& deps, const std::string& inbox_secret,
                       MetricsAccess metrics_access, std::size_t import_body_limit) {
  RegisterUserRoutes(router, deps, inbox_secret);
  RegisterUserErasureRoutes(router, deps);
  RegisterUserExportRoutes(router, deps);
  RegisterUserImportRoutes(router, deps, import_body_limit);
  RegisterNotificationRoutes(router, deps);
  RegisterInboxRoutes(router, deps);
  RegisterInboxActionRoutes(router, deps);
  RegisterSystemRoutes(router, deps, metrics_access);
  RegisterOpenApiRoute(router);
}

}  // namespace chopar::http
