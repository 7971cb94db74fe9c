#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/page.hpp"
#include "db/pool.hpp"

namespace chopar::access {

// One row of the audit log (migration 0039 writes them, in the transaction
// of each change an API caller, a console account or the command line
// makes). `before` and `after` are JSON objects of the row, or null; secret
// columns read "[secret]".
struct AuditEntry {
  std::int64_t id = 0;
  core::TimePoint at;
  std::string actor;  // "api_key", "key:<id>", "account:<id>", "cli"
  std::optional<std::string> actor_name;
  std::optional<std::string> address;
  std::optional<std::string> request_id;
  std::string action;  // "create", "update", "delete"
  std::string resource;
  std::string resource_id;
  std::optional<std::string> before_json;
  std::optional<std::string> after_json;
};

struct AuditFilter {
  std::optional<std::string> resource;
  std::optional<std::string> resource_id;
  std::optional<std::string> actor;
  std::optional<core::TimePoint> since;
};

// GET /v1/audit: newest first, keyset-paginated by id; limit 1..500.
// Throws core::RequestError invalid_field for a bad limit or cursor.
core::Page<AuditEntry> ListAudit(db::Pool& pool, const AuditFilter& filter, int limit,
                                 const std::optional<std::string>& cursor);

// GET /v1/users/{id}/export: up to `limit` rows about user `user_id` or a
// row of theirs (its push subscriptions, devices, memberships, schedules),
// newest first; erased ones are not (their values are gone). Throws
// db::DbError.
std::vector<AuditEntry> AuditAboutUser(db::Pool& pool, std::int64_t user_id, int limit);

}  // namespace chopar::access
