#include "mustache/partials.hpp"

namespace chopar::mustache {

PartialMap::PartialMap(const std::map<std::string, std::string>& sources) {
  for (const auto& [name, source] : sources) partials_.emplace(name, Partial(source));
}

const MustacheText* PartialMap::FindPartial(std::string_view name, Escaping escaping) const {
  const auto it = partials_.find(name);
  return it == partials_.end() ? nullptr : &it->second.For(escaping);
}

}  // namespace chopar::mustache
