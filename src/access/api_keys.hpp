#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"

namespace chopar::access {

// An API key as the API shows it: everything but the key itself, which is
// shown once, when it is made (docs/tenants-and-access.md).
struct ApiKey {
  std::int64_t id = 0;
  std::string name;
  std::string prefix;               // "chopar_Ab3x": the key's first characters
  std::vector<std::string> scopes;  // "notify", "read", "manage", "admin"
  std::optional<std::string> tenant;
  std::optional<core::TimePoint> expires_at;
  core::TimePoint created_at;
  std::optional<core::TimePoint> last_used_at;  // to the minute
};

// What POST /v1/api-keys asks for, validated by the caller (the database's
// CHECKs refuse anything else).
struct NewApiKey {
  std::string name;
  std::vector<std::string> scopes;
  std::optional<std::string> tenant;
  std::optional<core::TimePoint> expires_at;
};

struct CreatedApiKey {
  ApiKey key;
  std::string secret;  // "chopar_" + 43 base64url characters (256 random bits)
};

// The API keys of POST /v1/api-keys: made, listed, deleted, and resolved
// from a request's bearer token. A key is stored as the SHA-256 of its text
// only. Resolving answers from a per-process cache for up to kCacheTtl
// (unknown keys too, so that guessing costs the database nothing), so a key
// deleted by another process is refused within that time; the process that
// deletes it refuses it at once. Thread-safe.
class ApiKeyStore {
 public:
  static constexpr std::chrono::seconds kCacheTtl{5};
  static constexpr std::string_view kKeyPrefix = "chopar_";

  explicit ApiKeyStore(db::Pool& pool) : pool_(pool) {}

  // Throws core::RequestError not_found when `tenant` names no tenant.
  CreatedApiKey Create(const NewApiKey& key);
  // Newest first; limit 1..500; core::RequestError invalid_field for a bad
  // limit or cursor.
  core::Page<ApiKey> List(int limit, const std::optional<std::string>& cursor);
  // Whether a key was deleted.
  bool Delete(std::int64_t id);
  // Whether `token` has the form of a key Create makes ("chopar_" and 43
  // base64url characters): what can be told without the database.
  static bool LooksLikeKey(std::string_view token);
  // The key in force (not expired, not deleted) whose text is `token`.
  std::optional<ApiKey> Resolve(std::string_view token);

 private:
  struct CacheEntry {
    std::optional<ApiKey> key;
    std::chrono::steady_clock::time_point until;
  };
  static constexpr std::size_t kMaxCacheEntries = 10000;

  db::Pool& pool_;
  std::mutex mutex_;
  std::unordered_map<std::string, CacheEntry> cache_;  // by the key's SHA-256 (hex)
};

}  // namespace chopar::access
