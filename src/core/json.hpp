#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace chopar::core {

// The deepest nesting of arrays and objects accepted in JSON from outside
// (request bodies, webhooks, provider responses). Copying, comparing or
// dumping a nlohmann::json recurses once per level, so a value nested half a
// million deep (a 1 MiB body of '[') would overflow a thread's stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text` as one JSON value whose arrays and objects nest at most
// `max_depth` deep. The depth is checked on the text, before any value is
// built. Throws core::RequestError kInvalidJson for nesting that is too deep
// ("nested deeper than 64 levels") or for malformed JSON ("malformed JSON:
// <the parser's reason>"). Pure; thread-safe.
nlohmann::json ParseJson(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// The same, for input that is routed on rather than refused (provider
// responses, callbacks): a discarded value (is_discarded()) instead of an
// exception.
nlohmann::json ParseJsonOrDiscarded(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// Whether any string or object key in `value` holds the NUL character
// (U+0000), which PostgreSQL's text and jsonb cannot store. Recurses once per
// level: call it on values from ParseJson.
bool ContainsNul(const nlohmann::json& value);

}  // namespace chopar::core
