#pragma once

#include <string_view>

#include "db/params.hpp"
#include "db/pool.hpp"
#include "db/query.hpp"

namespace chopar::delivery {

// Runs one read-only statement of the delivery queue in its own transaction
// with sequential scans off (queries/plan_by_index.sql), so that its plan,
// generic or custom, reads the partial indexes of queued and leased rows
// whatever the statistics of `deliveries` say — they lag far behind while
// a broadcast queues a million rows. `name` names the transaction in logs.
// Returns the statement's result. Throws db::DbError / db::PoolTimeout.
// Thread-safe as `pool` is.
db::Result ExecPlannedByIndex(db::Pool& pool, std::string_view name, const db::Query& query,
                              const db::Params& params = {});

// The same inside `tx`, among its other statements: sequential scans are
// off for this one statement only (sent in the same round trip as the
// statements deferred before it) and on again for those after it.
db::Result ExecPlannedByIndex(db::Transaction& tx, const db::Query& query,
                              const db::Params& params);

}  // namespace chopar::delivery
