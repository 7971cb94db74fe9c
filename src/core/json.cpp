#include "core/json.hpp"

#include <string>

#include "core/request_error.hpp"

namespace chopar::core {
namespace {

// Whether the brackets of `text` outside strings nest deeper than
// `max_depth`. Malformed text may be misjudged; the parser refuses it anyway.
bool NestsDeeperThan(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

RequestError TooDeep(std::size_t max_depth) {
  return InvalidJson("the JSON is nested deeper than " + std::to_string(max_depth) + " levels");
}

}  // namespace

nlohmann::json ParseJson(std::string_view text, std::size_t max_depth) {
  if (NestsDeeperThan(text, max_depth)) throw TooDeep(max_depth);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double (1e400).
    throw InvalidJson(std::string("malformed JSON: ") + e.what());
  }
}

nlohmann::json ParseJsonOrDiscarded(std::string_view text, std::size_t max_depth) {
  if (NestsDeeperThan(text, max_depth)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

bool ContainsNul(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      return value.get_ref<const std::string&>().find('\0') != std::string::npos;
    case nlohmann::json::value_t::array:
      for (const auto& item : value) {
        if (ContainsNul(item)) return true;
      }
      return false;
    case nlohmann::json::value_t::object:
      for (const auto& [key, item] : value.items()) {
        if (key.find('\0') != std::string::npos || ContainsNul(item)) return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace chopar::core
