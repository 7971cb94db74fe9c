#pragma once

#include "http/message.hpp"

namespace chopar::http {

// A list's ?limit=: 1..max, else 400 invalid_field limit; `fallback` when
// absent.
inline int LimitParam(const Request& request, int fallback, int max) {
  return static_cast<int>(request.query.GetInt("limit", 1, max).value_or(fallback));
}

}  // namespace chopar::http
