#include "app/roles.hpp"

#include <stdexcept>

#include "app/closest_name.hpp"

namespace chopar::app {

Roles Roles::All() {
  Roles roles;
  for (const RoleName& entry : kRoleNames) roles.bits_ |= Bit(entry.role);
  return roles;
}

Roles Roles::Only(ProcessRole role) {
  Roles roles;
  roles.bits_ = Bit(role);
  return roles;
}

Roles Roles::FromNames(const std::vector<std::string>& names) {
  if (names.empty()) throw std::invalid_argument("must name at least one role");
  const std::vector<std::string> known = AllRoleNames();
  Roles roles;
  for (const std::string& name : names) {
    bool found = false;
    for (const RoleName& entry : kRoleNames) {
      if (entry.name != name) continue;
      roles.bits_ |= Bit(entry.role);
      found = true;
    }
    if (found) continue;
    const auto closest = ClosestName(name, known);
    throw std::invalid_argument("unknown role \"" + name + "\"" +
                                (closest ? " (did you mean " + known[*closest] + "?)" : "") +
                                "; the roles are " + All().Describe());
  }
  return roles;
}

std::string Roles::Describe() const {
  std::string text;
  for (const RoleName& entry : kRoleNames) {
    if (!Has(entry.role)) continue;
    if (!text.empty()) text += ", ";
    text += entry.name;
  }
  return text;
}

std::vector<std::string> AllRoleNames() {
  std::vector<std::string> names;
  for (const RoleName& entry : kRoleNames) names.emplace_back(entry.name);
  return names;
}

}  // namespace chopar::app
