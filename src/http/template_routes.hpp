#pragma once

#include "http/router.hpp"
#include "hub/user_service.hpp"
#include "templates/template_store.hpp"

namespace chopar::http {

// docs/api.md "Templates and localization" (server key):
// PUT/GET/DELETE /v1/templates/{type}, GET /v1/templates and
// POST /v1/templates/preview. `store` and `users` must outlive the router.
void RegisterTemplateRoutes(Router& router, templates::TemplateStore& store,
                            hub::UserService& users);

}  // namespace chopar::http
