#include "http/query_string.hpp"

#include <charconv>

#include "core/encoding.hpp"
#include "core/request_error.hpp"

namespace chopar::http {
namespace {

// A value is named by its parameter; NUL could reach SQL, which cannot hold it.
void RefuseNul(const std::string& field, const std::string& text) {
  if (text.find('\0') != std::string::npos) {
    throw core::InvalidField(field, field + " must not contain %00 (NUL)");
  }
}

}  // namespace

QueryParams QueryParams::Parse(std::string_view query) {
  auto pairs = core::DecodeFormPairs(query, core::MalformedEscapes::kRefuse);
  if (!pairs) throw core::InvalidField("query", "malformed percent-encoding in the query string");
  for (const auto& [name, value] : *pairs) {
    RefuseNul("query", name);
    RefuseNul(name, value);
  }
  QueryParams params;
  params.items_ = std::move(*pairs);
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
