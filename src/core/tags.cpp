#include "core/tags.hpp"

#include <algorithm>

#include "core/request_error.hpp"

namespace chopar::core {

std::vector<std::string> ParseTags(const nlohmann::json& value) {
  if (value.is_null()) return {};
  if (!value.is_array() || value.size() > kMaxTags) {
    throw InvalidField("tags",
                       "tags must be an array of at most " + std::to_string(kMaxTags) + " tags");
  }
  std::vector<std::string> tags;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string field = "tags[" + std::to_string(i) + "]";
    if (!value[i].is_string() || !IsTagName(value[i].get_ref<const std::string&>())) {
      throw InvalidField(field, field + " must match ^[a-z0-9][a-z0-9_.:-]{0,49}$, e.g. billing");
    }
    std::string tag = value[i].get<std::string>();
    if (std::ranges::find(tags, tag) != tags.end()) {
      throw InvalidField(field, field + " repeats the tag " + tag);
    }
    tags.push_back(std::move(tag));
  }
  return tags;
}

}  // namespace chopar::core
