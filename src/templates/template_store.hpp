#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "templates/document_cache.hpp"
#include "templates/fragment_store.hpp"
#include "templates/library.hpp"
#include "templates/template.hpp"
#include "templates/versions.hpp"

namespace chopar::templates {

// A template as stored (GET /v1/templates/{type}; http::TemplateView is its
// JSON): the parsed template and when it was first and last stored.
struct StoredTemplate {
  std::shared_ptr<const Template> tmpl;
  // The tenant whose own template it is; none for a global template.
  std::optional<std::string> tenant;
  core::TimePoint created_at;
  core::TimePoint updated_at;
  // The live version (templates/versions.hpp): the newest of its history;
  // none when it has none (written around the API).
  std::optional<int> version = std::nullopt;
};

// Where notify finds a type's template. Find is called for every
// notification, so it must not touch the database.
class TemplateLookup {
 public:
  virtual ~TemplateLookup() = default;
  // The template of `type`, or null when it has none. Thread-safe.
  [[nodiscard]] virtual std::shared_ptr<const Template> Find(std::string_view type) const = 0;
  // Find, and when that has none, the database once: another process may
  // have stored the template a moment ago, its NOTIFY still on the way. For
  // a request that would otherwise be refused for want of a template; it
  // costs a query, so everything else uses Find. Thread-safe.
  [[nodiscard]] virtual std::shared_ptr<const Template> FindFresh(std::string_view type) const {
    return Find(type);
  }
  // The template of `type` for a notification in `tenant`: the tenant's
  // own template of the type when it has one, else Find(type). Without a
  // tenant, Find(type). Thread-safe; no database.
  [[nodiscard]] virtual std::shared_ptr<const Template> FindFor(
      std::string_view type, const std::optional<std::string>& tenant) const {
    (void)tenant;
    return Find(type);
  }
  // The partials and layouts texts render with for a notification in
  // `tenant` (none: the global ones). Thread-safe; no database. Without
  // any: an empty library (partials render as nothing, no layout).
  [[nodiscard]] virtual RenderLibrary Library(const std::optional<std::string>& tenant) const {
    (void)tenant;
    return {};
  }
};

// Templates stored in PostgreSQL (table chopar.templates), each process
// holding every one of them parsed in memory (a DocumentCache).
//
// The cache is complete: Start() loads every template, and a LISTEN on
// chopar_templates (db::kTemplatesChannel) reloads a type whenever any
// process stores or deletes it, and everything again after each
// (re)connection, so a change is seen everywhere as soon as its NOTIFY
// arrives. This process's own Put and Delete refresh the cache before they
// return. Reloads are serialised, each reading the database after the one
// before, so the last reload leaves the newest state.
//
// Database failures throw db::DbError / db::PoolTimeout. Thread-safe; the
// pool must outlive the store.
class TemplateStore final : public TemplateLookup {
 public:
  // `listen_conninfo`: the connection LISTEN runs on (the pool's own
  // conninfo, or a direct one when the pool goes through PgBouncer).
  TemplateStore(db::Pool& pool, std::string listen_conninfo);
  ~TemplateStore() override;  // Stop()
  TemplateStore(const TemplateStore&) = delete;
  TemplateStore& operator=(const TemplateStore&) = delete;

  // Loads every template, layout and partial, then starts listening.
  // Throws db::DbError if the first load fails.
  void Start();
  // Stops listening; the cache stays as it is. Idempotent.
  void Stop();

  [[nodiscard]] std::shared_ptr<const Template> Find(std::string_view type) const override;
  [[nodiscard]] std::shared_ptr<const Template> FindFresh(std::string_view type) const override;
  [[nodiscard]] std::shared_ptr<const Template> FindFor(
      std::string_view type, const std::optional<std::string>& tenant) const override;
  [[nodiscard]] RenderLibrary Library(const std::optional<std::string>& tenant) const override;
  // The layouts and partials (docs/api.md "Layouts", "Partials"), cached
  // beside the templates, listening from Start() on.
  [[nodiscard]] FragmentStore& layouts() { return layouts_; }
  [[nodiscard]] FragmentStore& partials() { return partials_; }
  // The categories the cached templates name, sorted, each once.
  [[nodiscard]] std::vector<std::string> Categories() const;

  // Each of the following works on the global template of a type, or with
  // `tenant` on that tenant's own template of it (chopar.tenant_templates),
  // which replaces the global one for notifications in the tenant.

  // Creates or replaces the template, and records tmpl.source as its next
  // version in the same transaction; returns it as Get reads it. Throws
  // core::RequestError kNotFound for a tenant that does not exist.
  StoredTemplate Put(const Template& tmpl, const std::optional<std::string>& tenant = std::nullopt);
  // The stored template of `type`. Throws core::RequestError kNotFound when
  // there is none, or when the stored one no longer parses (a text rule made
  // stricter by an upgrade: notify, too, then treats the type as having no
  // template, and a PUT stores it again).
  StoredTemplate Get(const std::string& type,
                     const std::optional<std::string>& tenant = std::nullopt);
  // Every stored template that parses, by type: the global ones, or with
  // `tenant` that tenant's own.
  std::vector<StoredTemplate> List(const std::optional<std::string>& tenant = std::nullopt);
  // Throws core::RequestError kNotFound when there is none.
  void Delete(const std::string& type, const std::optional<std::string>& tenant = std::nullopt);

  // Versions and drafts (templates/versions.hpp; defined in
  // template_history.cpp). Restore stores the document of version
  // `version` as the next, live, version; Publish does so with the draft
  // and deletes it, in one transaction. Both return the template as Get
  // reads it, and throw core::RequestError kNotFound when there is no such
  // version or no draft, kConflict naming the field when the document no
  // longer parses (a rule made stricter since it was stored), kInvalidField
  // "layout" as RequireLayout; refused, they change nothing.
  StoredTemplate Restore(const std::string& type, int version,
                         const std::optional<std::string>& tenant = std::nullopt);
  StoredTemplate Publish(const std::string& type,
                         const std::optional<std::string>& tenant = std::nullopt);
  // Throws core::RequestError kInvalidField "layout" when `tmpl` names a
  // layout a template of `tenant` cannot find (its own or a global one; a
  // global template a global one), as the database has it now: what PUT,
  // Restore and Publish refuse.
  void RequireLayout(const Template& tmpl, const std::optional<std::string>& tenant);
  // The draft, parsed (what preview renders; never what notify sends).
  // kNotFound when there is none, kConflict when it no longer parses.
  std::shared_ptr<const Template> ParsedDraft(const std::string& type,
                                              const std::optional<std::string>& tenant);
  // What a preview with drafts renders: the draft when there is one, else
  // FindFor (null when neither). kConflict as ParsedDraft.
  std::shared_ptr<const Template> DraftOrLive(const std::string& type,
                                              const std::optional<std::string>& tenant);
  // Library, with the drafts of layouts and partials in place of the live
  // ones of their keys (FragmentStore::WithDrafts): for previews only.
  // Reads the database.
  [[nodiscard]] RenderLibrary LibraryWithDrafts(const std::optional<std::string>& tenant) const;
  // The histories and drafts of templates.
  [[nodiscard]] VersionStore& versions() { return versions_; }

  // Reads every template again (what a (re)connection of the listener does).
  void ReloadAll();
  // Reads one template again by its NOTIFY payload: a type (the global
  // template) or "<tenant>/<type>" (a tenant's own). Stored, it replaces
  // the cached one; gone, it leaves the cache. Const: it changes only the
  // cache.
  void ReloadType(const std::string& type) const;

 private:
  // By type (global templates) and by "<tenant>/<type>" (a tenant's own;
  // neither a type nor a tenant key holds a '/').
  using Map = DocumentCache<Template>::Map;
  [[nodiscard]] std::shared_ptr<const Map> Snapshot() const;
  // Put's writes in `tx`: the template, then its next version. Throws
  // kNotFound for a tenant that does not exist.
  void Store(db::Transaction& tx, const Template& tmpl, const std::optional<std::string>& tenant);
  // Reloads what Store changed, then reads it as Get.
  StoredTemplate Stored(const std::string& type, const std::optional<std::string>& tenant);
  // The cache's loaders: every template, or one by its cache key.
  [[nodiscard]] std::shared_ptr<Map> LoadAll() const;
  [[nodiscard]] std::shared_ptr<const Template> LoadOne(const std::string& key) const;

  db::Pool& pool_;
  VersionStore versions_;
  const std::string listen_conninfo_;
  DocumentCache<Template> cache_;
  FragmentStore layouts_;
  FragmentStore partials_;
};

}  // namespace chopar::templates
