#include "console/page.hpp"

#include <charconv>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::console {
namespace {

core::RequestError BadCursor() {
  return core::InvalidField("cursor", "cursor is malformed; pass next_cursor as returned");
}

}  // namespace

int CheckLimit(int limit, int max) {
  if (limit < 1 || limit > max) {
    throw core::InvalidField("limit", "limit must be between 1 and " + std::to_string(max));
  }
  return limit;
}

std::string DecodeKeyCursor(const std::string& cursor) {
  auto key = core::Base64UrlDecode(cursor);
  if (!key || key->empty()) throw BadCursor();
  for (const char c : *key) {
    if (c < 0x20 || c > 0x7e) throw BadCursor();  // char may be signed: >= 0x80 is < 0
  }
  return std::move(*key);
}

std::int64_t DecodeIdCursor(const std::string& cursor) {
  const std::string key = DecodeKeyCursor(cursor);
  std::int64_t id = 0;
  const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), id);
  if (error != std::errc() || end != key.data() + key.size() || id <= 0) throw BadCursor();
  return id;
}

int ShownRows(const db::Result& rows, int limit) {
  return rows.Rows() > limit ? limit : rows.Rows();
}

std::optional<std::string> NextCursor(const db::Result& rows, int limit, const char* key_column) {
  if (rows.Rows() <= limit) return std::nullopt;
  return core::Base64UrlEncode(rows.Text(limit - 1, key_column));
}

}  // namespace chopar::console
