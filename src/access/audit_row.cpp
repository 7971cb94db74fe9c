#include "access/audit_row.hpp"

#include "access/queries.hpp"
#include "db/time_column.hpp"

namespace chopar::access {

AuditEntry ReadAuditEntry(const db::Result& r, int i) {
  return AuditEntry{.id = r.Int(i, "id"),
                    .at = db::TimeColumn(r, i, "at"),
                    .actor = r.String(i, "actor"),
                    .actor_name = r.OptString(i, "actor_name"),
                    .address = r.OptString(i, "address"),
                    .request_id = r.OptString(i, "request_id"),
                    .action = r.String(i, "action"),
                    .resource = r.String(i, "resource"),
                    .resource_id = r.String(i, "resource_id"),
                    .before_json = r.OptString(i, "before"),
                    .after_json = r.OptString(i, "after")};
}

std::vector<AuditEntry> AuditAboutUser(db::Pool& pool, std::int64_t user_id, int limit) {
  const auto rows = pool.Acquire()->Exec(queries::kAuditAboutUser, user_id, limit);
  std::vector<AuditEntry> entries;
  for (int i = 0; i < rows.Rows(); ++i) entries.push_back(ReadAuditEntry(rows, i));
  return entries;
}

}  // namespace chopar::access
