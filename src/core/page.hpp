#pragma once

#include <optional>
#include <string>
#include <vector>

namespace chopar::core {

// One page of a keyset-paginated list: its items and the opaque cursor of
// the next page (none: the last page). http::PageView is its JSON.
template <typename T>
struct Page {
  std::vector<T> items;
  std::optional<std::string> next_cursor;
};

}  // namespace chopar::core
