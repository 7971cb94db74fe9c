#include "access/audit_log.hpp"

#include "access/queries.hpp"
#include "console/page.hpp"
#include "core/time_format.hpp"
#include "db/time_column.hpp"

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
  return console::PageOf(rows, limit, "id", [](const db::Result& r, int i) {
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
  });
}

}  // namespace chopar::access
