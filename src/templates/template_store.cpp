#include "templates/template_store.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "core/request_error.hpp"
#include "db/notify_channels.hpp"
#include "templates/queries.hpp"

namespace chopar::templates {
namespace {

// A stored template parsed again. The API validated it before storing; one
// that no longer parses (a text rule made stricter) is logged and left out
// rather than stopping every other template.
std::shared_ptr<const Template> Parse(const std::string& doc) {
  const auto json = nlohmann::json::parse(doc);
  const std::string type = json.at("type");
  try {
    return std::make_shared<const Template>(ParseTemplate(type, json));
  } catch (const core::RequestError& e) {
    spdlog::error("template {} is stored but does not parse: {} (field {})", type, e.what(),
                  e.field().value_or(""));
    return nullptr;
  }
}

}  // namespace

TemplateStore::TemplateStore(db::Pool& pool, std::string listen_conninfo)
    : pool_(pool),
      map_(std::make_shared<const Map>()),
      listener_(
          db::ListenerSettings{.conninfo = std::move(listen_conninfo),
                               .channel = db::kTemplatesChannel,
                               .name = "template cache"},
          [this] { ReloadAll(); },
          [this](const std::vector<db::Notification>& notifications) {
            for (const auto& n : notifications) ReloadType(n.payload);
          }) {}

TemplateStore::~TemplateStore() { Stop(); }

void TemplateStore::Start() {
  ReloadAll();
  listener_.Start();
}

void TemplateStore::Stop() { listener_.Stop(); }

std::shared_ptr<const TemplateStore::Map> TemplateStore::Snapshot() const {
  std::lock_guard lock(map_mutex_);
  return map_;
}

std::shared_ptr<const Template> TemplateStore::Find(std::string_view type) const {
  const auto map = Snapshot();
  const auto it = map->find(type);
  return it == map->end() ? nullptr : it->second;
}

std::shared_ptr<const Template> TemplateStore::FindFresh(std::string_view type) const {
  if (auto cached = Find(type)) return cached;
  ReloadType(std::string(type));
  return Find(type);
}

std::vector<std::string> TemplateStore::Categories() const {
  std::set<std::string> names;
  for (const auto& [type, tmpl] : *Snapshot()) {
    if (tmpl->category) names.insert(*tmpl->category);
  }
  return {names.begin(), names.end()};
}

void TemplateStore::Install(std::shared_ptr<const Map> map) const {
  std::lock_guard lock(map_mutex_);
  map_ = std::move(map);
}

void TemplateStore::ReloadAll() {
  std::lock_guard reload(reload_mutex_);
  const auto rows = pool_.Acquire()->Exec(queries::kListTemplates);
  auto map = std::make_shared<Map>();
  for (int i = 0; i < rows.Rows(); ++i) {
    if (auto parsed = Parse(rows.String(i, "doc"))) map->emplace(parsed->type, std::move(parsed));
  }
  Install(std::move(map));
}

void TemplateStore::ReloadType(const std::string& type) const {
  std::lock_guard reload(reload_mutex_);
  const auto rows = pool_.Acquire()->Exec(queries::kGetTemplate, type);
  std::shared_ptr<const Template> parsed = rows.Empty() ? nullptr : Parse(rows.String(0, "doc"));
  if (parsed == nullptr && !Snapshot()->contains(type)) return;  // nothing to change
  auto map = std::make_shared<Map>(*Snapshot());
  if (parsed) {
    (*map)[type] = std::move(parsed);
  } else {
    map->erase(type);
  }
  Install(std::move(map));
}

nlohmann::json TemplateStore::Put(const Template& tmpl) {
  nlohmann::json locales = nlohmann::json::object();
  for (const auto& [locale, texts] : tmpl.locales) locales[locale] = texts.ToJson();
  auto optional_json = [](const nlohmann::json& value) {
    return value.is_null() ? std::nullopt : std::optional<std::string>(value.dump());
  };
  pool_.Acquire()->Exec(queries::kPutTemplate, tmpl.type, tmpl.category, tmpl.default_locale,
                        locales.dump(), optional_json(tmpl.digest), optional_json(tmpl.throttle),
                        optional_json(tmpl.escalate));
  ReloadType(tmpl.type);
  return Get(tmpl.type);
}

nlohmann::json TemplateStore::Get(const std::string& type) {
  const auto rows = pool_.Acquire()->Exec(queries::kGetTemplate, type);
  if (rows.Empty()) throw core::NotFound("notification type " + type + " has no template");
  return nlohmann::json::parse(rows.String(0, "doc"));
}

nlohmann::json TemplateStore::List() {
  const auto rows = pool_.Acquire()->Exec(queries::kListTemplates);
  nlohmann::json items = nlohmann::json::array();
  for (int i = 0; i < rows.Rows(); ++i)
    items.push_back(nlohmann::json::parse(rows.String(i, "doc")));
  return {{"items", std::move(items)}};
}

void TemplateStore::Delete(const std::string& type) {
  const bool deleted = !pool_.Acquire()->Exec(queries::kDeleteTemplate, type).Empty();
  ReloadType(type);
  if (!deleted) throw core::NotFound("notification type " + type + " has no template");
}

}  // namespace chopar::templates
