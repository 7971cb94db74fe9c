#include "templates/template_store.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "core/request_error.hpp"
#include "db/notify_channels.hpp"
#include "db/time_column.hpp"
#include "templates/queries.hpp"

namespace chopar::templates {
namespace {

nlohmann::json OptionalJson(const db::Result& rows, int row, const char* column) {
  return rows.IsNull(row, column) ? nlohmann::json(nullptr)
                                  : nlohmann::json::parse(rows.Text(row, column));
}

// Row `row` of get_template.sql or list_templates.sql parsed again, as its
// PUT body was. The API validated it before storing; one that no longer
// parses (a text rule made stricter) is logged and left out rather than
// stopping every other template.
std::shared_ptr<const Template> Parse(const db::Result& rows, int row) {
  const std::string type = rows.String(row, "type");
  nlohmann::json body = {
      {"category", rows.IsNull(row, "category") ? nlohmann::json(nullptr)
                                                : nlohmann::json(rows.String(row, "category"))},
      {"default_locale", rows.String(row, "default_locale")},
      {"locales", nlohmann::json::parse(rows.Text(row, "locales"))},
      {"tags", nlohmann::json::parse(rows.Text(row, "tags"))},
      {"digest", OptionalJson(rows, row, "digest")},
      {"throttle", OptionalJson(rows, row, "throttle")},
      {"escalate", OptionalJson(rows, row, "escalate")},
      {"layout", rows.IsNull(row, "layout") ? nlohmann::json(nullptr)
                                            : nlohmann::json(rows.String(row, "layout"))},
      {"steps", OptionalJson(rows, row, "steps")}};
  try {
    return std::make_shared<const Template>(ParseTemplate(type, body));
  } catch (const core::RequestError& e) {
    spdlog::error("template {} is stored but does not parse: {} (field {})", type, e.what(),
                  e.field().value_or(""));
    return nullptr;
  }
}

std::optional<StoredTemplate> ReadStored(const db::Result& rows, int row) {
  auto parsed = Parse(rows, row);
  if (!parsed) return std::nullopt;
  std::optional<std::string> tenant;
  tenant = rows.OptString(row, "tenant");
  const auto version = rows.OptInt(row, "version");
  return StoredTemplate{std::move(parsed), std::move(tenant),
                        db::TimeColumn(rows, row, "created_at"),
                        db::TimeColumn(rows, row, "updated_at"),
                        version ? std::optional<int>(static_cast<int>(*version)) : std::nullopt};
}

// The cache's key of a tenant's own template.
std::string TenantKey(std::string_view tenant, std::string_view type) {
  std::string key(tenant);
  key += '/';
  key += type;
  return key;
}

std::string NoTemplate(const std::string& type, const std::optional<std::string>& tenant) {
  return tenant ? "tenant " + *tenant + " has no template of notification type " + type
                : "notification type " + type + " has no template";
}

}  // namespace

TemplateStore::TemplateStore(db::Pool& pool, std::string listen_conninfo)
    : pool_(pool),
      versions_(pool),
      listen_conninfo_(std::move(listen_conninfo)),
      cache_(
          listen_conninfo_, [this] { return LoadAll(); },
          [this](const std::string& key) { return LoadOne(key); }),
      layouts_(FragmentKind::kLayout, pool, listen_conninfo_),
      partials_(FragmentKind::kPartial, pool, listen_conninfo_) {}

TemplateStore::~TemplateStore() { Stop(); }

void TemplateStore::Start() {
  // Partials and layouts first: a template's texts render with them.
  partials_.Start();
  layouts_.Start();
  cache_.Start(db::kTemplatesChannel);
}

void TemplateStore::Stop() {
  cache_.Stop();
  layouts_.Stop();
  partials_.Stop();
}

RenderLibrary TemplateStore::Library(const std::optional<std::string>& tenant) const {
  return RenderLibrary(layouts_.Snapshot(), partials_.Snapshot(), tenant);
}

std::shared_ptr<const TemplateStore::Map> TemplateStore::Snapshot() const {
  return cache_.Snapshot();
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

std::shared_ptr<const Template> TemplateStore::FindFor(
    std::string_view type, const std::optional<std::string>& tenant) const {
  const auto map = Snapshot();
  if (tenant) {
    if (const auto it = map->find(TenantKey(*tenant, type)); it != map->end()) return it->second;
  }
  const auto it = map->find(type);
  return it == map->end() ? nullptr : it->second;
}

std::vector<std::string> TemplateStore::Categories() const {
  std::set<std::string> names;
  for (const auto& [type, tmpl] : *Snapshot()) {
    if (tmpl->category) names.insert(*tmpl->category);
  }
  return {names.begin(), names.end()};
}

void TemplateStore::ReloadAll() { cache_.ReloadAll(); }

void TemplateStore::ReloadType(const std::string& type) const { cache_.ReloadOne(type); }

std::shared_ptr<TemplateStore::Map> TemplateStore::LoadAll() const {
  auto conn = pool_.Acquire();
  const auto rows = conn->Exec(queries::kListTemplates);
  const auto own = conn->Exec(queries::kListTenantTemplates, std::optional<std::string>());
  auto map = std::make_shared<Map>();
  for (int i = 0; i < rows.Rows(); ++i) {
    if (auto parsed = Parse(rows, i)) map->emplace(parsed->type, std::move(parsed));
  }
  for (int i = 0; i < own.Rows(); ++i) {
    if (auto parsed = Parse(own, i)) {
      map->emplace(TenantKey(own.String(i, "tenant"), parsed->type), std::move(parsed));
    }
  }
  return map;
}

std::shared_ptr<const Template> TemplateStore::LoadOne(const std::string& type) const {
  const std::size_t slash = type.find('/');
  const auto rows = slash == std::string::npos
                        ? pool_.Acquire()->Exec(queries::kGetTemplate, type)
                        : pool_.Acquire()->Exec(queries::kGetTenantTemplate, type.substr(0, slash),
                                                type.substr(slash + 1));
  return rows.Empty() ? nullptr : Parse(rows, 0);
}

StoredTemplate TemplateStore::Put(const Template& tmpl, const std::optional<std::string>& tenant) {
  {
    auto tx = pool_.Begin("put_template");
    Store(tx, tmpl, tenant);
    tx.Commit();
  }  // its connection back before Stored borrows one
  return Stored(tmpl.type, tenant);
}

void TemplateStore::Store(db::Transaction& tx, const Template& tmpl,
                          const std::optional<std::string>& tenant) {
  nlohmann::json locales = nlohmann::json::object();
  for (const auto& [locale, texts] : tmpl.locales) locales[locale] = texts.Sources();
  auto optional_json = [](const nlohmann::json& value) {
    return value.is_null() ? std::nullopt : std::optional<std::string>(value.dump());
  };
  const auto tags = tmpl.tags.empty() ? std::nullopt : std::optional(db::ArrayLiteral(tmpl.tags));
  if (tenant) {
    const auto stored =
        tx.Exec(queries::kPutTenantTemplate, *tenant, tmpl.type, tmpl.category, tmpl.default_locale,
                locales.dump(), optional_json(tmpl.digest), optional_json(tmpl.throttle),
                optional_json(tmpl.escalate), tags, tmpl.layout, optional_json(tmpl.steps));
    if (stored.Empty()) throw core::NotFound("tenant " + *tenant + " does not exist");
  } else {
    tx.Defer(queries::kPutTemplate, tmpl.type, tmpl.category, tmpl.default_locale, locales.dump(),
             optional_json(tmpl.digest), optional_json(tmpl.throttle), optional_json(tmpl.escalate),
             tags, tmpl.layout, optional_json(tmpl.steps));
  }
  // After the template's row: see RecordVersion.
  RecordVersion(tx, DocumentKey{DocumentKind::kTemplate, tmpl.type, tenant}, tmpl.source);
}

StoredTemplate TemplateStore::Stored(const std::string& type,
                                     const std::optional<std::string>& tenant) {
  ReloadType(tenant ? TenantKey(*tenant, type) : type);
  return Get(type, tenant);
}

StoredTemplate TemplateStore::Get(const std::string& type,
                                  const std::optional<std::string>& tenant) {
  const auto rows = tenant ? pool_.Acquire()->Exec(queries::kGetTenantTemplate, *tenant, type)
                           : pool_.Acquire()->Exec(queries::kGetTemplate, type);
  if (rows.Empty()) throw core::NotFound(NoTemplate(type, tenant));
  auto stored = ReadStored(rows, 0);
  if (!stored) {
    throw core::NotFound(NoTemplate(type, tenant) +
                         ": the stored one no longer parses; PUT it again");
  }
  return std::move(*stored);
}

std::vector<StoredTemplate> TemplateStore::List(const std::optional<std::string>& tenant) {
  const auto rows = tenant ? pool_.Acquire()->Exec(queries::kListTenantTemplates, *tenant)
                           : pool_.Acquire()->Exec(queries::kListTemplates);
  std::vector<StoredTemplate> items;
  for (int i = 0; i < rows.Rows(); ++i) {
    if (auto stored = ReadStored(rows, i)) items.push_back(std::move(*stored));
  }
  return items;
}

void TemplateStore::Delete(const std::string& type, const std::optional<std::string>& tenant) {
  const bool deleted =
      !(tenant ? pool_.Acquire()->Exec(queries::kDeleteTenantTemplate, *tenant, type)
               : pool_.Acquire()->Exec(queries::kDeleteTemplate, type))
           .Empty();
  ReloadType(tenant ? TenantKey(*tenant, type) : type);
  if (!deleted) throw core::NotFound(NoTemplate(type, tenant));
}

}  // namespace chopar::templates
