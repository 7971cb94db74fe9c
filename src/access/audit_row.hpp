#pragma once

#include "access/audit_log.hpp"
#include "db/result.hpp"

namespace chopar::access {

// Row `i` of a query of the audit log that selects its columns as
// list_audit.sql does (times as text).
AuditEntry ReadAuditEntry(const db::Result& rows, int i);

}  // namespace chopar::access
