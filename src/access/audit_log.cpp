#include "access/audit_log.hpp"

#include "access/audit_row.hpp"
#include "access/queries.hpp"
#include "console/page.hpp"
#include "core/time_format.hpp"

namespace chopar::access {

core::Page<AuditEntry> ListAudit(db::Pool& pool, const AuditFilter& filter, int limit,
                                 const std::optional<std::string>& cursor) {
  console::CheckLimit(limit, 500);
  const std::optional<std::int64_t> before =
      cursor ? std::optional(console::DecodeIdCursor(*cursor)) : std::nullopt;
  const std::optional<std::string> since =
      filter.since ? std::optional(core::FormatRfc3339Micros(*filter.since)) : std::nullopt;
  const auto rows = pool.Acquire()->Exec(queries::kListAudit, filter.resource, filter.actor, since,
                                         before, limit + 1, filter.resource_id);
  return console::PageOf(rows, limit, "id", ReadAuditEntry);
}

}  // namespace chopar::access
