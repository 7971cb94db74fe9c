#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/type_name.hpp"

namespace chopar::core {

// The most tags a notification (or a template) carries.
inline constexpr std::size_t kMaxTags = 10;

// A request's or a template's "tags": null, or an array of at most
// kMaxTags distinct tags (IsTagName). Throws RequestError kInvalidField "tags" (not an
// array, too many) or "tags[i]" (a bad or repeated tag). Null: none. Pure.
std::vector<std::string> ParseTags(const nlohmann::json& value);

}  // namespace chopar::core
