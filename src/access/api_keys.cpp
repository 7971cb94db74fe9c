#include "access/api_keys.hpp"

#include <algorithm>

#include "access/queries.hpp"
#include "console/page.hpp"
#include "core/encoding.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "db/errors.hpp"
#include "db/params.hpp"
#include "db/time_column.hpp"

namespace chopar::access {
namespace {

constexpr std::size_t kRandomBytes = 32;
constexpr std::size_t kShownCharacters = 4;  // of the random part, in `prefix`

std::vector<std::string> SplitScopes(const std::string& joined) {
  std::vector<std::string> scopes;
  std::size_t start = 0;
  while (start <= joined.size()) {
    const auto comma = joined.find(',', start);
    const auto end = comma == std::string::npos ? joined.size() : comma;
    if (end > start) scopes.push_back(joined.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return scopes;
}

ApiKey ReadKey(const db::Result& rows, int row) {
  return ApiKey{.id = rows.Int(row, "id"),
                .name = rows.String(row, "name"),
                .prefix = rows.String(row, "prefix"),
                .scopes = SplitScopes(rows.String(row, "scopes")),
                .tenant = rows.OptString(row, "tenant"),
                .expires_at = db::OptTimeColumn(rows, row, "expires_at"),
                .created_at = db::TimeColumn(rows, row, "created_at"),
                .last_used_at = db::OptTimeColumn(rows, row, "last_used_at")};
}

std::string HashHex(std::string_view token) { return core::HexEncode(core::Sha256(token)); }

}  // namespace

CreatedApiKey ApiKeyStore::Create(const NewApiKey& key) {
  std::string secret =
      std::string(kKeyPrefix) + core::Base64UrlEncode(core::RandomBytes(kRandomBytes));
  const std::string prefix = secret.substr(0, kKeyPrefix.size() + kShownCharacters);
  const std::optional<std::string> expires =
      key.expires_at ? std::optional(core::FormatRfc3339Micros(*key.expires_at)) : std::nullopt;
  try {
    const auto rows =
        pool_.Acquire()->Exec(queries::kInsertApiKey, key.name, prefix, HashHex(secret),
                              db::ArrayLiteral(key.scopes), key.tenant, expires);
    return CreatedApiKey{.key = ReadKey(rows, 0), .secret = std::move(secret)};
  } catch (const db::ForeignKeyViolation&) {
    throw core::NotFound("tenant " + key.tenant.value_or("") + " does not exist");
  }
}

core::Page<ApiKey> ApiKeyStore::List(int limit, const std::optional<std::string>& cursor) {
  console::CheckLimit(limit, 500);
  const std::optional<std::int64_t> before =
      cursor ? std::optional(console::DecodeIdCursor(*cursor)) : std::nullopt;
  const auto rows = pool_.Acquire()->Exec(queries::kListApiKeys, before, limit + 1);
  return console::PageOf(rows, limit, "id", ReadKey);
}

bool ApiKeyStore::Delete(std::int64_t id) {
  const bool deleted = !pool_.Acquire()->Exec(queries::kDeleteApiKey, id).Empty();
  // This process refuses it from now on; the others within kCacheTtl.
  std::lock_guard lock(mutex_);
  std::erase_if(cache_,
                [id](const auto& entry) { return entry.second.key && entry.second.key->id == id; });
  return deleted;
}

bool ApiKeyStore::LooksLikeKey(std::string_view token) {
  constexpr std::size_t kEncoded = (kRandomBytes * 4 + 2) / 3;  // unpadded base64url
  if (token.size() != kKeyPrefix.size() + kEncoded || !token.starts_with(kKeyPrefix)) return false;
  return std::all_of(token.begin() + static_cast<std::ptrdiff_t>(kKeyPrefix.size()), token.end(),
                     [](char c) {
                       return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                              (c >= '0' && c <= '9') || c == '-' || c == '_';
                     });
}

std::optional<ApiKey> ApiKeyStore::Resolve(std::string_view token) {
  const std::string hash = HashHex(token);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    if (const auto it = cache_.find(hash); it != cache_.end() && it->second.until > now) {
      const auto& key = it->second.key;
      if (!key || !key->expires_at || *key->expires_at > std::chrono::system_clock::now())
        return key;
    }
  }
  const auto rows = pool_.Acquire()->Exec(queries::kResolveApiKey, hash);
  std::optional<ApiKey> key = rows.Empty() ? std::nullopt : std::optional(ReadKey(rows, 0));
  std::lock_guard lock(mutex_);
  if (cache_.size() >= kMaxCacheEntries) cache_.clear();
  cache_[hash] = CacheEntry{.key = key, .until = now + kCacheTtl};
  return key;
}

}  // namespace chopar::access
