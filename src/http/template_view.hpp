#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "templates/template_store.hpp"

namespace chopar::http {

// GET /v1/templates/{type} (docs/api.md "Templates and localization"):
// {"type", "category", "default_locale", "locales": {locale: {"title",
// "body", <channel>: {<field>…}}}, "digest", "throttle", "escalate",
// "created_at", "updated_at"}; the texts and settings as they were given.
nlohmann::json TemplateView(const templates::StoredTemplate& stored);

// GET /v1/templates: {"items": [TemplateView…]}.
nlohmann::json TemplateListView(const std::vector<templates::StoredTemplate>& list);

}  // namespace chopar::http
