#include "http/template_view.hpp"

#include "http/json_view.hpp"
#include "workflow/steps.hpp"

namespace chopar::http {

nlohmann::json TemplateView(const templates::StoredTemplate& stored) {
  const templates::Template& t = *stored.tmpl;
  nlohmann::json locales = nlohmann::json::object();
  for (const auto& [locale, texts] : t.locales) locales[locale] = texts.Sources();
  return {
      {"type", t.type},
      {"category", OrNull(t.category)},
      {"default_locale", t.default_locale},
      {"locales", std::move(locales)},
      {"tags", t.tags},
      {"digest", t.digest},
      {"throttle", t.throttle},
      {"escalate", t.escalate},
      {"layout", OrNull(t.layout)},
      // The steps as given, or the three settings above as the steps
      // they amount to (null when there are none).
      {"steps", t.steps.is_null() ? workflow::ConvertedStepsJson(t.digest, t.throttle, t.escalate)
                                  : t.steps},
      {"tenant", OrNull(stored.tenant)},
      {"version", OrNull(stored.version)},
      {"created_at", TimeView(stored.created_at)},
      {"updated_at", TimeView(stored.updated_at)}};
}

nlohmann::json TemplateListView(const std::vector<templates::StoredTemplate>& list) {
  nlohmann::json items = nlohmann::json::array();
  for (const templates::StoredTemplate& stored : list) items.push_back(TemplateView(stored));
  return {{"items", std::move(items)}};
}

}  // namespace chopar::http
