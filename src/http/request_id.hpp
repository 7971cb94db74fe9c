#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace chopar::http {

// The id of one request: the X-Request-Id it came with when that is usable —
// 1 to 128 characters, each an ASCII letter, digit or one of - _ . : / + = @
// (so it is safe in a header and a log line) — else a new random one (32
// lowercase hex digits). Every response carries it as X-Request-Id and every
// log line written while the request is handled carries it as request_id.
// Thread-safe.
std::string RequestIdFor(std::optional<std::string_view> header);

}  // namespace chopar::http
