#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/page.hpp"
#include "db/result.hpp"

namespace chopar::console {

// One page of a keyset-paginated list of the console's endpoints (a
// core::Page; http::PageView shows it). A cursor is the base64url of
// the last shown row's key (an id or a text key), opaque to clients.

// `limit` when it lies in 1..max; else core::InvalidField("limit").
int CheckLimit(int limit, int max);

// The row key a cursor carries; core::InvalidField("cursor") for one that is
// not base64url or whose key is not printable ASCII (the keys cursors carry,
// ids and schedule keys, are; other bytes would reach PostgreSQL as text
// that is not UTF-8). DecodeIdCursor also refuses a key that is not an
// integer.
std::string DecodeKeyCursor(const std::string& cursor);
std::int64_t DecodeIdCursor(const std::string& cursor);

// Of rows queried with LIMIT limit + 1: how many to show (at most `limit`),
// and the next cursor, holding column `key_column` of the last shown row
// when there was one more row (else null).
int ShownRows(const db::Result& rows, int limit);
std::optional<std::string> NextCursor(const db::Result& rows, int limit, const char* key_column);

// The page of such rows, each shown row read by `read(rows, row)`.
template <typename Read>
auto PageOf(const db::Result& rows, int limit, const char* key_column, Read read)
    -> core::Page<decltype(read(rows, 0))> {
  core::Page<decltype(read(rows, 0))> page;
  for (int i = 0; i < ShownRows(rows, limit); ++i) page.items.push_back(read(rows, i));
  page.next_cursor = NextCursor(rows, limit, key_column);
  return page;
}

}  // namespace chopar::console
