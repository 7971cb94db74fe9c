#include "access/tenants.hpp"

#include "access/queries.hpp"
#include "console/page.hpp"
#include "db/time_column.hpp"

namespace chopar::access {
namespace {

Tenant ReadTenant(const db::Result& rows, int row) {
  return Tenant{.key = rows.String(row, "key"),
                .name = rows.String(row, "name"),
                .branding_json = rows.String(row, "branding"),
                .preferences_json = rows.String(row, "preferences"),
                .created_at = db::TimeColumn(rows, row, "created_at"),
                .updated_at = db::TimeColumn(rows, row, "updated_at")};
}

}  // namespace

PutTenantResult TenantStore::Put(const std::string& key, const std::string& name,
                                 const std::string& branding_json,
                                 const std::string& preferences_json) {
  const auto rows =
      pool_.Acquire()->Exec(queries::kPutTenant, key, name, branding_json, preferences_json);
  return PutTenantResult{.tenant = ReadTenant(rows, 0), .created = rows.Bool(0, "created")};
}

std::optional<Tenant> TenantStore::Get(const std::string& key) {
  const auto rows = pool_.Acquire()->Exec(queries::kGetTenant, key);
  if (rows.Empty()) return std::nullopt;
  return ReadTenant(rows, 0);
}

core::Page<Tenant> TenantStore::List(int limit, const std::optional<std::string>& cursor) {
  console::CheckLimit(limit, 500);
  const std::optional<std::string> after =
      cursor ? std::optional(console::DecodeKeyCursor(*cursor)) : std::nullopt;
  const auto rows = pool_.Acquire()->Exec(queries::kListTenants, after, limit + 1);
  return console::PageOf(rows, limit, "key", ReadTenant);
}

bool TenantStore::Delete(const std::string& key) {
  return !pool_.Acquire()->Exec(queries::kDeleteTenant, key).Empty();
}

}  // namespace chopar::access
