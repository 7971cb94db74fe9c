#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chopar::http {

// What a credential may do (docs/tenants-and-access.md, "Scopes"). A set of
// them is a bit mask: the scopes a caller holds, with what each implies
// already added (ScopeSet::Granting).
enum class Scope : std::uint8_t {
  kNotify = 1,   // create notifications and broadcasts
  kRead = 2,     // read everything the caller may see
  kOperate = 4,  // retry deliveries, cancel broadcasts (the console's operator)
  kManage = 8,   // users, templates, topics, schedules, preferences
  kAdmin = 16,   // API keys, tenants, console accounts, the audit log
};

// The name of a scope as the API spells it ("notify", "read", …).
std::string_view ScopeName(Scope scope);
// The scope a name spells; nullopt for an unknown name.
std::optional<Scope> ParseScope(std::string_view name);
// Every scope an API key may be granted, in the API's order.
const std::vector<Scope>& GrantableScopes();

class ScopeSet {
 public:
  ScopeSet() = default;
  // `scopes` with what each implies: admin implies every other scope,
  // manage implies operate and read, operate implies read.
  static ScopeSet Granting(const std::vector<Scope>& scopes);
  static ScopeSet All() { return Granting({Scope::kAdmin}); }

  [[nodiscard]] bool Has(Scope scope) const { return (bits_ & static_cast<unsigned>(scope)) != 0; }

 private:
  unsigned bits_ = 0;
};

// Who made a request, as the dispatcher established it.
struct Caller {
  enum class Kind {
    kBootstrapKey,  // [server] api_key
    kApiKey,        // a key of POST /v1/api-keys
    kAccount,       // a console account's session
  };
  Kind kind = Kind::kBootstrapKey;
  std::int64_t id = 0;  // the key's or the account's id; 0 for the bootstrap key
  std::string name;     // the key's name or the account's email
  ScopeSet scopes;
  // A key confined to a tenant sees and changes that tenant's data only.
  std::optional<std::string> tenant;
  // A console session's CSRF token: every state-changing request of the
  // session must carry it (X-CSRF-Token). Empty for keys.
  std::string csrf_token;

  // How the audit log names the caller: "api_key" (the bootstrap key),
  // "key:<id>" or "account:<id>".
  [[nodiscard]] std::string AuditName() const;
};

}  // namespace chopar::http
