#include "http/caller.hpp"

#include <array>

namespace chopar::http {
namespace {

struct NamedScope {
  Scope scope;
  std::string_view name;
};

constexpr std::array kScopeNames{
    NamedScope{Scope::kNotify, "notify"},   NamedScope{Scope::kRead, "read"},
    NamedScope{Scope::kOperate, "operate"}, NamedScope{Scope::kManage, "manage"},
    NamedScope{Scope::kAdmin, "admin"},
};

unsigned Implied(Scope scope) {
  const auto bit = [](Scope s) { return static_cast<unsigned>(s); };
  switch (scope) {
    case Scope::kAdmin:
      return bit(Scope::kAdmin) | bit(Scope::kManage) | bit(Scope::kOperate) | bit(Scope::kRead) |
             bit(Scope::kNotify);
    case Scope::kManage:
      return bit(Scope::kManage) | bit(Scope::kOperate) | bit(Scope::kRead);
    case Scope::kOperate:
      return bit(Scope::kOperate) | bit(Scope::kRead);
    case Scope::kRead:
    case Scope::kNotify:
      return bit(scope);
  }
  return 0;
}

}  // namespace

std::string_view ScopeName(Scope scope) {
  for (const auto& named : kScopeNames) {
    if (named.scope == scope) return named.name;
  }
  return "";
}

std::optional<Scope> ParseScope(std::string_view name) {
  for (const auto& named : kScopeNames) {
    if (named.name == name) return named.scope;
  }
  return std::nullopt;
}

const std::vector<Scope>& GrantableScopes() {
  static const std::vector<Scope> kGrantable{Scope::kNotify, Scope::kRead, Scope::kManage,
                                             Scope::kAdmin};
  return kGrantable;
}

ScopeSet ScopeSet::Granting(const std::vector<Scope>& scopes) {
  ScopeSet set;
  for (const Scope scope : scopes) set.bits_ |= Implied(scope);
  return set;
}

std::string Caller::AuditName() const {
  switch (kind) {
    case Kind::kBootstrapKey:
      return "api_key";
    case Kind::kApiKey:
      return "key:" + std::to_string(id);
    case Kind::kAccount:
      return "account:" + std::to_string(id);
  }
  return "";
}

}  // namespace chopar::http
