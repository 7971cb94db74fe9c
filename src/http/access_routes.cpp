// Tenants, API keys and the audit log (docs/tenants-and-access.md).
#include "http/access_routes.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "access/audit_log.hpp"
#include "core/json.hpp"
#include "core/request_error.hpp"
#include "core/time_format.hpp"
#include "http/json_view.hpp"
#include "http/message.hpp"
#include "http/page_params.hpp"
#include "hub/preferences.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNameBytes = 200;

// A required string of 1..max bytes without control characters.
std::string RequiredText(const json& body, const std::string& field, std::size_t max) {
  const auto it = body.find(field);
  if (it == body.end() || !it->is_string()) {
    throw core::InvalidField(field, field + " is required and must be a string");
  }
  std::string text = it->get<std::string>();
  if (text.empty() || text.size() > max) {
    throw core::InvalidField(field, field + " must be 1 to " + std::to_string(max) + " bytes");
  }
  for (const unsigned char c : text) {
    if (c < 0x20 || c == 0x7f)
      throw core::InvalidField(field, field + " must not hold control characters");
  }
  return text;
}

void RefuseUnknownMembers(const json& body, const std::set<std::string>& known,
                          const std::string& prefix) {
  for (const auto& [name, value] : body.items()) {
    if (!known.contains(name)) {
      throw core::InvalidField(prefix + name, "unknown field " + prefix + name);
    }
  }
}

// ---- API keys ----

json KeyView(const access::ApiKey& key) {
  return {{"id", key.id},
          {"name", key.name},
          {"prefix", key.prefix},
          {"scopes", key.scopes},
          {"tenant", OrNull(key.tenant)},
          {"expires_at", TimeView(key.expires_at)},
          {"created_at", TimeView(key.created_at)},
          {"last_used_at", TimeView(key.last_used_at)}};
}

std::vector<std::string> ParseScopes(const json& body) {
  const auto it = body.find("scopes");
  if (it == body.end() || !it->is_array() || it->empty()) {
    throw core::InvalidField(
        "scopes", "scopes is required: a non-empty array of notify, read, manage, admin");
  }
  std::vector<std::string> scopes;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    const std::string field = "scopes[" + std::to_string(i) + "]";
    const std::string name = item.is_string() ? item.get<std::string>() : "";
    const auto& grantable = GrantableScopes();
    if (std::none_of(grantable.begin(), grantable.end(),
                     [&name](Scope scope) { return ScopeName(scope) == name; })) {
      throw core::InvalidField(field, field + " must be one of notify, read, manage, admin");
    }
    if (std::find(scopes.begin(), scopes.end(), name) != scopes.end()) {
      throw core::InvalidField(field, field + " repeats " + name);
    }
    scopes.push_back(name);
  }
  return scopes;
}

std::optional<std::string> OptionalText(const json& body, const std::string& field,
                                        std::size_t max) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return std::nullopt;
  return RequiredText(body, field, max);
}

const std::regex& TenantKeyPattern() {
  static const std::regex kPattern("[A-Za-z0-9][A-Za-z0-9._:-]{0,99}");
  return kPattern;
}

void CheckTenantKey(const std::string& key, const std::string& field) {
  if (!std::regex_match(key, TenantKeyPattern())) {
    throw core::InvalidField(field, field +
                                        " must be 1 to 100 of A-Z a-z 0-9 . _ : - starting with a "
                                        "letter or digit");
  }
}

struct CreateKey {
  access::ApiKeyStore& keys;
  Response operator()(const Request& request) const {
    const json body = ParseJsonObject(request);
    RefuseUnknownMembers(body, {"name", "scopes", "tenant", "expires_at"}, "");
    access::NewApiKey key{.name = RequiredText(body, "name", kMaxNameBytes),
                          .scopes = ParseScopes(body),
                          .tenant = OptionalText(body, "tenant", 100),
                          .expires_at = std::nullopt};
    if (key.tenant) {
      CheckTenantKey(*key.tenant, "tenant");
      if (std::find(key.scopes.begin(), key.scopes.end(), "admin") != key.scopes.end()) {
        throw core::InvalidField("scopes",
                                 "a key confined to a tenant cannot hold admin: admin "
                                 "reaches every tenant");
      }
    }
    if (const auto expires = OptionalText(body, "expires_at", 64)) {
      key.expires_at = core::ParseRfc3339(*expires);
      if (!key.expires_at) {
        throw core::InvalidField("expires_at", "expires_at must be an RFC 3339 time");
      }
      if (*key.expires_at <= std::chrono::system_clock::now()) {
        throw core::InvalidField("expires_at", "expires_at must be in the future");
      }
    }
    const access::CreatedApiKey created = keys.Create(key);
    json view = KeyView(created.key);
    view["key"] = created.secret;
    return JsonResponse(201, view);
  }
};

struct ListKeys {
  access::ApiKeyStore& keys;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200,
        PageView(keys.List(LimitParam(request, 50, 500), request.query.Get("cursor")), KeyView));
  }
};

struct DeleteKey {
  access::ApiKeyStore& keys;
  Response operator()(const Request& request) const {
    if (!keys.Delete(request.Id("id"))) {
      throw core::NotFound("API key " + std::to_string(request.Id("id")) + " does not exist");
    }
    return NoContentResponse();
  }
};

// ---- Tenants ----

json TenantView(const access::Tenant& tenant) {
  return {{"key", tenant.key},
          {"name", tenant.name},
          {"branding", json::parse(tenant.branding_json)},
          {"preferences", json::parse(tenant.preferences_json)},
          {"created_at", TimeView(tenant.created_at)},
          {"updated_at", TimeView(tenant.updated_at)}};
}

// logo_url (http(s), ≤ 2048), primary_color (#rrggbb), sender_name (≤ 100,
// one line), footer (≤ 2000): each optional.
json ParseBranding(const json& body) {
  const auto it = body.find("branding");
  if (it == body.end() || it->is_null()) return json::object();
  if (!it->is_object()) throw core::InvalidField("branding", "branding must be an object");
  const json& branding = *it;
  RefuseUnknownMembers(branding, {"logo_url", "primary_color", "sender_name", "footer"},
                       "branding.");
  json checked = json::object();
  if (const auto url = OptionalText(branding, "logo_url", 2048)) {
    if (!url->starts_with("https://") && !url->starts_with("http://")) {
      throw core::InvalidField("branding.logo_url", "branding.logo_url must be an http(s) URL");
    }
    checked["logo_url"] = *url;
  }
  if (const auto color = OptionalText(branding, "primary_color", 7)) {
    static const std::regex kColor("#[0-9A-Fa-f]{6}");
    if (!std::regex_match(*color, kColor)) {
      throw core::InvalidField("branding.primary_color", "branding.primary_color must be #rrggbb");
    }
    checked["primary_color"] = *color;
  }
  if (const auto sender = OptionalText(branding, "sender_name", 100)) {
    checked["sender_name"] = *sender;
  }
  if (const auto it_footer = branding.find("footer");
      it_footer != branding.end() && !it_footer->is_null()) {
    if (!it_footer->is_string() || it_footer->get<std::string>().size() > 2000) {
      throw core::InvalidField("branding.footer",
                               "branding.footer must be a string of at most 2000 bytes");
    }
    checked["footer"] = *it_footer;
  }
  return checked;
}

json ParseTenantPreferences(const json& body) {
  const auto it = body.find("preferences");
  if (it == body.end() || it->is_null()) return json::object();
  if (!it->is_object()) throw core::InvalidField("preferences", "preferences must be an object");
  hub::ValidatePreferences(*it, "");
  // Stored as a user's are: no null left.
  return hub::MergedPreferences(json::object(), *it);
}

struct PutTenant {
  access::TenantStore& tenants;
  Response operator()(const Request& request) const {
    const std::string& key = request.String("key");
    CheckTenantKey(key, "key");
    const json body = ParseJsonObject(request);
    RefuseUnknownMembers(body, {"name", "branding", "preferences"}, "");
    const std::string name = RequiredText(body, "name", kMaxNameBytes);
    const json branding = ParseBranding(body);
    const json preferences = ParseTenantPreferences(body);
    const auto result = tenants.Put(key, name, DumpJson(branding), DumpJson(preferences));
    return JsonResponse(result.created ? 201 : 200, TenantView(result.tenant));
  }
};

struct GetTenant {
  access::TenantStore& tenants;
  Response operator()(const Request& request) const {
    const auto tenant = tenants.Get(request.String("key"));
    if (!tenant) throw core::NotFound("tenant " + request.String("key") + " does not exist");
    return JsonResponse(200, TenantView(*tenant));
  }
};

struct ListTenants {
  access::TenantStore& tenants;
  Response operator()(const Request& request) const {
    return JsonResponse(
        200, PageView(tenants.List(LimitParam(request, 50, 500), request.query.Get("cursor")),
                      TenantView));
  }
};

struct DeleteTenant {
  access::TenantStore& tenants;
  Response operator()(const Request& request) const {
    if (!tenants.Delete(request.String("key"))) {
      throw core::NotFound("tenant " + request.String("key") + " does not exist");
    }
    return NoContentResponse();
  }
};

// ---- The audit log ----

json OptionalJson(const std::optional<std::string>& text) {
  return text ? json::parse(*text) : json(nullptr);
}

json AuditView(const access::AuditEntry& entry) {
  return {{"id", entry.id},
          {"at", core::FormatRfc3339Micros(entry.at)},
          {"actor", entry.actor},
          {"actor_name", OrNull(entry.actor_name)},
          {"address", OrNull(entry.address)},
          {"request_id", OrNull(entry.request_id)},
          {"action", entry.action},
          {"resource", entry.resource},
          {"resource_id", entry.resource_id},
          {"before", OptionalJson(entry.before_json)},
          {"after", OptionalJson(entry.after_json)}};
}

std::optional<std::string> BoundedParam(const Request& request, const std::string& name,
                                        std::size_t max) {
  auto value = request.query.Get(name);
  if (value && (value->empty() || value->size() > max)) {
    throw core::InvalidField(name, name + " must be 1 to " + std::to_string(max) + " bytes");
  }
  return value;
}

struct ListAuditLog {
  db::Pool& pool;
  Response operator()(const Request& request) const {
    access::AuditFilter filter{.resource = BoundedParam(request, "resource", 50),
                               .resource_id = BoundedParam(request, "resource_id", 500),
                               .actor = BoundedParam(request, "actor", 100),
                               .since = std::nullopt};
    if (const auto since = request.query.Get("since")) {
      filter.since = core::ParseRfc3339(*since);
      if (!filter.since) throw core::InvalidField("since", "since must be an RFC 3339 time");
    }
    return JsonResponse(200, PageView(access::ListAudit(pool, filter, LimitParam(request, 50, 500),
                                                        request.query.Get("cursor")),
                                      AuditView));
  }
};

}  // namespace

Caller CallerOfKey(const access::ApiKey& key) {
  std::vector<Scope> scopes;
  for (const std::string& name : key.scopes) {
    if (const auto scope = ParseScope(name)) scopes.push_back(*scope);
  }
  return Caller{.kind = Caller::Kind::kApiKey,
                .id = key.id,
                .name = key.name,
                .scopes = ScopeSet::Granting(scopes),
                .tenant = key.tenant,
                .csrf_token = {}};
}

std::function<std::optional<Caller>(std::string_view)> ApiKeyResolver(access::ApiKeyStore& keys) {
  return [&keys](std::string_view token) -> std::optional<Caller> {
    // Only what has the form of chopar's keys is looked up.
    if (!access::ApiKeyStore::LooksLikeKey(token)) return std::nullopt;
    const auto key = keys.Resolve(token);
    if (!key) return std::nullopt;
    return CallerOfKey(*key);
  };
}

void RegisterAccessRoutes(Router& router, db::Pool& pool, access::ApiKeyStore& keys,
                          access::TenantStore& tenants) {
  router.Add("POST", "/v1/api-keys", Auth::kServerKey, CreateKey{keys});
  router.Add("GET", "/v1/api-keys", Auth::kServerKey, ListKeys{keys});
  router.Add("DELETE", "/v1/api-keys/{id}", Auth::kServerKey, DeleteKey{keys});
  router.Add("GET", "/v1/tenants", Auth::kServerKey, ListTenants{tenants});
  router.Add("PUT", "/v1/tenants/{key:str}", Auth::kServerKey, PutTenant{tenants});
  router.Add("GET", "/v1/tenants/{key:str}", Auth::kServerKey, GetTenant{tenants});
  router.Add("DELETE", "/v1/tenants/{key:str}", Auth::kServerKey, DeleteTenant{tenants});
  router.Add("GET", "/v1/audit", Auth::kServerKey, ListAuditLog{pool});
}

}  // namespace chopar::http
