#include "delivery/plan_by_index.hpp"

#include "delivery/queries.hpp"

namespace chopar::delivery {

db::Result ExecPlannedByIndex(db::Pool& pool, std::string_view name, const db::Query& query,
                              const db::Params& params) {
  auto tx = pool.Begin(name);
  // Local to the transaction: the commit restores the session's setting.
  tx.Defer(queries::kPlanByIndex, "off");
  return tx.ExecAndCommit(query, params);
}

db::Result ExecPlannedByIndex(db::Transaction& tx, const db::Query& query,
                              const db::Params& params) {
  tx.Defer(queries::kPlanByIndex, "off");
  auto result = tx.Exec(query, params);
  tx.Defer(queries::kPlanByIndex, "on");
  return result;
}

}  // namespace chopar::delivery
