#pragma once

#include <optional>
#include <string>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"

namespace chopar::access {

// A tenant (docs/tenants-and-access.md): one customer of the application.
// Branding and default preferences are JSON objects the HTTP layer has
// validated (their shapes are the API's).
struct Tenant {
  std::string key;
  std::string name;
  std::string branding_json;     // {"logo_url", "primary_color", "sender_name", "footer"}
  std::string preferences_json;  // a user's preferences object
  core::TimePoint created_at;
  core::TimePoint updated_at;
};

struct PutTenantResult {
  Tenant tenant;
  bool created = false;
};

// The tenants of PUT/GET/DELETE /v1/tenants/{key}. Thread-safe.
class TenantStore {
 public:
  explicit TenantStore(db::Pool& pool) : pool_(pool) {}

  PutTenantResult Put(const std::string& key, const std::string& name,
                      const std::string& branding_json, const std::string& preferences_json);
  std::optional<Tenant> Get(const std::string& key);
  // In key order; limit 1..500; core::RequestError invalid_field for a bad
  // limit or cursor.
  core::Page<Tenant> List(int limit, const std::optional<std::string>& cursor);
  // Whether it existed. Its API keys go with it.
  bool Delete(const std::string& key);

 private:
  db::Pool& pool_;
};

}  // namespace chopar::access
