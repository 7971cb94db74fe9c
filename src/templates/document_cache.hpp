#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "db/listen_hub.hpp"

namespace chopar::templates {

// What TemplateStore and FragmentStore keep in every process: each stored
// document of one table parsed in memory, by its cache key ("<key>", or
// "<tenant>/<key>" for a tenant's own, which is also the NOTIFY payload of
// its change). The cache is complete: Start() loads everything, then a
// LISTEN on the table's channel reloads one key whenever any process
// changes it, and everything again after each (re)connection. Reloads are
// serialised, each reading the database after the one before, so the last
// reload leaves the newest state; readers take an immutable snapshot and
// never wait for a reload's query.
//
// Thread-safe. The loaders run on the calling thread or the listener's; they
// must stay valid until Stop() (the owner stops the cache before it goes).
template <typename T>
class DocumentCache {
 public:
  using Map = std::map<std::string, std::shared_ptr<const T>, std::less<>>;
  // Reads every document: the map to install. Throws db::DbError.
  using LoadAll = std::function<std::shared_ptr<Map>()>;
  // Reads one by its cache key: null when it is gone or no longer parses.
  using LoadOne = std::function<std::shared_ptr<const T>(const std::string& key)>;

  DocumentCache(std::string listen_conninfo, LoadAll load_all, LoadOne load_one)
      : listen_conninfo_(std::move(listen_conninfo)),
        load_all_(std::move(load_all)),
        load_one_(std::move(load_one)) {}
  ~DocumentCache() { Stop(); }
  DocumentCache(const DocumentCache&) = delete;
  DocumentCache& operator=(const DocumentCache&) = delete;

  // Loads everything, then listens on `channel`. Throws db::DbError if the
  // load fails.
  void Start(const std::string& channel) {
    ReloadAll();
    if (subscription_) return;
    subscription_ = db::ListenHub::Shared(listen_conninfo_)
                        ->Subscribe(
                            channel, [this] { ReloadAll(); },
                            [this](const std::vector<db::Notification>& notifications) {
                              for (const auto& n : notifications) ReloadOne(n.payload);
                            });
  }
  // Stops listening (waiting for a reload in progress on the listener);
  // the cache stays as it is. Idempotent.
  void Stop() {
    if (subscription_) subscription_->Cancel();
  }

  // The cache as it is now: immutable, safe to keep and read from any thread.
  [[nodiscard]] std::shared_ptr<const Map> Snapshot() const {
    std::lock_guard lock(map_mutex_);
    return map_;
  }

  void ReloadAll() const {
    std::lock_guard reload(reload_mutex_);
    Install(load_all_());
  }
  // Reads `key` again: stored, it replaces the cached one; gone, it leaves
  // the cache.
  void ReloadOne(const std::string& key) const {
    std::lock_guard reload(reload_mutex_);
    std::shared_ptr<const T> loaded = load_one_(key);
    if (loaded == nullptr && !Snapshot()->contains(key)) return;  // nothing to change
    auto map = std::make_shared<Map>(*Snapshot());
    if (loaded) {
      (*map)[key] = std::move(loaded);
    } else {
      map->erase(key);
    }
    Install(std::move(map));
  }

 private:
  void Install(std::shared_ptr<const Map> map) const {
    std::lock_guard lock(map_mutex_);
    map_ = std::move(map);
  }

  const std::string listen_conninfo_;
  const LoadAll load_all_;
  const LoadOne load_one_;
  mutable std::mutex reload_mutex_;  // one reload at a time, read and install
  mutable std::mutex map_mutex_;     // guards map_ (the pointer, not the map)
  mutable std::shared_ptr<const Map> map_ = std::make_shared<const Map>();
  // The process's LISTEN session's (db::ListenHub), from Start() on.
  std::unique_ptr<db::ListenHub::Subscription> subscription_;
};

}  // namespace chopar::templates
