#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "db/pool.hpp"
#include "templates/document_cache.hpp"
#include "templates/fragment.hpp"
#include "templates/versions.hpp"

namespace chopar::templates {

// A layout or a partial as stored (GET /v1/layouts/{key}, /v1/partials/{key}).
struct StoredFragment {
  std::shared_ptr<const Fragment> fragment;
  std::optional<std::string> tenant;  // none: the global one
  core::TimePoint created_at;
  core::TimePoint updated_at;
  // The live version (templates/versions.hpp): the newest of its history;
  // none when it has none (written around the API).
  std::optional<int> version = std::nullopt;
};

// How many layouts, and how many partials, one scope (global, or one
// tenant's own) may hold.
inline constexpr std::size_t kMaxFragmentsPerScope = 1000;

// The layouts or the partials (one store per kind; tables chopar.layouts,
// chopar.partials), each process holding all of them parsed in memory in a
// DocumentCache, as TemplateStore does templates: Start() loads them, a
// LISTEN on chopar_layouts / chopar_partials reloads one whenever any
// process changes it, and all again after each (re)connection; this process's own
// Put and Delete refresh the cache before they return. Notify and the
// delivery workers read the cache only (Snapshot, Find), never the
// database.
//
// Database failures throw db::DbError / db::PoolTimeout. Thread-safe; the
// pool must outlive the store.
class FragmentStore {
 public:
  // By key (the global ones) and "<tenant>/<key>" (a tenant's own).
  using Map = DocumentCache<Fragment>::Map;

  FragmentStore(FragmentKind kind, db::Pool& pool, std::string listen_conninfo);
  ~FragmentStore();  // Stop()
  FragmentStore(const FragmentStore&) = delete;
  FragmentStore& operator=(const FragmentStore&) = delete;

  // Loads every one, then listens. Throws db::DbError if the load fails.
  void Start();
  // Stops listening; the cache stays as it is. Idempotent.
  void Stop();

  [[nodiscard]] FragmentKind kind() const { return kind_; }
  // The cache as it is now: immutable, safe to keep and read from any thread.
  [[nodiscard]] std::shared_ptr<const Map> Snapshot() const;
  // In `map`: tenant's own `key`, else the global one; null when neither.
  [[nodiscard]] static const std::shared_ptr<const Fragment>* FindIn(
      const Map& map, std::string_view key, const std::optional<std::string>& tenant);

  // Creates or replaces the global one of fragment.key, or with `tenant`
  // that tenant's own, and records fragment.document as its next version
  // in the same transaction; returns it as Get reads it. Throws
  // core::RequestError kNotFound for a tenant that does not exist,
  // kInvalidField "key" when the scope holds kMaxFragmentsPerScope others.
  StoredFragment Put(const Fragment& fragment,
                     const std::optional<std::string>& tenant = std::nullopt);
  // Throws core::RequestError kNotFound when there is none.
  StoredFragment Get(const std::string& key,
                     const std::optional<std::string>& tenant = std::nullopt);
  // The global ones, or with `tenant` that tenant's own, by key (those that
  // still parse).
  std::vector<StoredFragment> List(const std::optional<std::string>& tenant = std::nullopt);
  // Throws core::RequestError kNotFound when there is none; for a layout
  // a template would then miss (delete_layout.sql), kInUse naming them.
  void Delete(const std::string& key, const std::optional<std::string>& tenant = std::nullopt);
  // Whether a template of `tenant` (none: a global template) may name the
  // layout `key`: the tenant's own or a global one exists (the database,
  // not the cache: it may have been stored by another process a moment
  // ago).
  bool LayoutExists(const std::string& key, const std::optional<std::string>& tenant);

  // Versions and drafts (templates/versions.hpp; defined in
  // fragment_history.cpp), as TemplateStore::Restore and ::Publish: the
  // document of version `version`, or the draft (then deleted in the same
  // transaction), stored as the next, live, version. Throw
  // core::RequestError kNotFound when there is no such version or no
  // draft, kConflict naming the field when it no longer parses.
  StoredFragment Restore(const std::string& key, int version,
                         const std::optional<std::string>& tenant = std::nullopt);
  StoredFragment Publish(const std::string& key,
                         const std::optional<std::string>& tenant = std::nullopt);
  // The cache as Snapshot, each draft of a global one or of `tenant`'s own
  // in place of the live one of its key (or beside: a draft of a key not
  // stored yet): what a preview with drafts renders with, never a
  // notification. Reads the database. Throws core::RequestError kConflict
  // naming the field when a draft no longer parses.
  [[nodiscard]] std::shared_ptr<const Map> WithDrafts(
      const std::optional<std::string>& tenant) const;
  // The histories and drafts of this kind.
  [[nodiscard]] VersionStore& versions() { return versions_; }
  [[nodiscard]] DocumentKind history_kind() const {
    return kind_ == FragmentKind::kLayout ? DocumentKind::kLayout : DocumentKind::kPartial;
  }

  void ReloadAll();
  // Reads one again by its NOTIFY payload ("<key>" or "<tenant>/<key>").
  void ReloadOne(const std::string& payload) const;

 private:
  // Put's writes, in `tx`: the document in its table. Throws kNotFound for
  // a tenant that does not exist, kInvalidField "key" past the bound.
  void Store(db::Transaction& tx, const Fragment& fragment,
             const std::optional<std::string>& tenant);
  // Reloads what Store changed, then reads it as Get.
  StoredFragment Stored(const std::string& key, const std::optional<std::string>& tenant);
  // The cache's loaders: every one of this kind, or one by its cache key.
  [[nodiscard]] std::shared_ptr<Map> LoadAll() const;
  [[nodiscard]] std::shared_ptr<const Fragment> LoadOne(const std::string& payload) const;

  const FragmentKind kind_;
  db::Pool& pool_;
  VersionStore versions_;
  DocumentCache<Fragment> cache_;
};

}  // namespace chopar::templates
