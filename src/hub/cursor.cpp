#include "hub/cursor.hpp"

#include <charconv>
#include <optional>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::hub {
namespace {

core::RequestError BadCursor() {
  return core::InvalidField("cursor", "cursor is malformed; pass next_cursor as returned");
}

// A decimal integer >= `min` filling all of `text` (no sign, no blanks).
std::int64_t NonNegative(std::string_view text, std::int64_t min) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text.front() < '0' || text.front() > '9') throw BadCursor();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || value < min) throw BadCursor();
  return value;
}

std::string Decoded(std::string_view text) {
  auto decoded = core::Base64UrlDecode(text);
  if (!decoded || decoded->empty()) throw BadCursor();
  return std::move(*decoded);
}

}  // namespace

std::string EncodeInboxCursor(const InboxCursor& cursor) {
  return core::Base64UrlEncode(std::to_string(cursor.created_micros) + ":" +
                               std::to_string(cursor.id));
}

InboxCursor DecodeInboxCursor(std::string_view text) {
  const std::string decoded = Decoded(text);
  const auto colon = decoded.find(':');
  if (colon == std::string::npos) throw BadCursor();
  const std::string_view view(decoded);
  return {NonNegative(view.substr(0, colon), 0), NonNegative(view.substr(colon + 1), 1)};
}

std::string EncodeIdCursor(std::int64_t id) { return core::Base64UrlEncode(std::to_string(id)); }

std::int64_t DecodeIdCursor(std::string_view text) { return NonNegative(Decoded(text), 1); }

}  // namespace chopar::hub
