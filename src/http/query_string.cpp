#include "http/query_string.hpp"

#include <charconv>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::http {
namespace {

std::string Decoded(std::string_view text) {
  auto decoded = core::PercentDecode(text, /*plus_is_space=*/true);
  if (!decoded) throw core::InvalidField("query", "malformed percent-encoding in the query string");
  return std::move(*decoded);
}

// A value is named by its parameter; NUL could reach SQL, which cannot hold it.
std::string DecodedValue(const std::string& name, std::string_view text) {
  std::string value = Decoded(text);
  if (value.find('\0') != std::string::npos) {
    throw core::InvalidField(name, name + " must not contain %00 (NUL)");
  }
  return value;
}

}  // namespace

QueryParams QueryParams::Parse(std::string_view query) {
  QueryParams params;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    if (eq == std::string_view::npos) {
      params.items_.emplace_back(DecodedValue("query", piece), std::string());
    } else {
      std::string name = DecodedValue("query", piece.substr(0, eq));
      std::string value = DecodedValue(name, piece.substr(eq + 1));
      params.items_.emplace_back(std::move(name), std::move(value));
    }
  }
  return params;
}

std::optional<std::string> QueryParams::Get(std::string_view name) const {
  for (const auto& [key, value] : items_) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::optional<std::int64_t> QueryParams::GetInt(std::string_view name, std::int64_t min,
                                                std::int64_t max) const {
  const auto text = Get(name);
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (text->empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    throw core::InvalidField(std::string(name), std::string(name) + " must be an integer from " +
                                                    std::to_string(min) + " to " +
                                                    std::to_string(max));
  }
  return value;
}

std::optional<bool> QueryParams::GetBool(std::string_view name) const {
  const auto text = Get(name);
  if (!text) return std::nullopt;
  if (*text == "true" || *text == "1") return true;
  if (*text == "false" || *text == "0") return false;
  throw core::InvalidField(std::string(name), std::string(name) + " must be true or false");
}

}  // namespace chopar::http
