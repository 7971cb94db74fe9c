#pragma once

#include "http/router.hpp"
#include "templates/template_store.hpp"

namespace chopar::http {

// docs/api.md "Layouts" and "Partials" (server key, ?tenant= as
// templates): PUT/GET/DELETE /v1/layouts/{key}, GET /v1/layouts, and the
// same under /v1/partials. `store` must outlive the router.
void RegisterFragmentRoutes(Router& router, templates::TemplateStore& store);

// GET /v1/layouts/{key}: {"key", "tenant", "html", "text", "created_at",
// "updated_at"}; GET /v1/partials/{key}: the same with "text" alone.
nlohmann::json FragmentView(const templates::StoredFragment& stored);

}  // namespace chopar::http
