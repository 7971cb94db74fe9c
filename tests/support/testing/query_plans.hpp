#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "db/connection.hpp"

namespace chopar::testing {

// The text of an EXPLAIN in its default format: its rows, a line each.
inline std::string PlanText(const db::Result& explain) {
  std::string plan;
  for (int i = 0; i < explain.Rows(); ++i) plan += explain.String(i, 0) + "\n";
  return plan;
}

// The plan `sql` ran with `params` (EXPLAIN ANALYZE without costs or
// timings, chopar's tables unqualified), as PlanText gives it. An unnamed
// statement with its parameters: a custom plan.
inline std::string AnalyzedPlan(db::Connection& conn, std::string_view sql,
                                const db::Params& params) {
  conn.ExecScript("SET search_path = chopar");
  return PlanText(
      conn.ExecText(std::string("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ").append(sql), params));
}

// The relations that the plan `explain_json` (the output of EXPLAIN (FORMAT
// JSON)) reads with a Seq Scan and that hold at least `min_rows` rows by the
// statistics of `conn`'s database (pg_class.reltuples: ANALYZE first). An
// empty partition, which the planner rightly reads sequentially, is not one.
inline std::set<std::string> BigRelationsScannedSequentially(db::Connection& conn,
                                                             const std::string& explain_json,
                                                             double min_rows = 1000) {
  std::set<std::string> scanned;
  const auto walk = [&](const auto& self, const nlohmann::json& node) -> void {
    if (node.value("Node Type", "") == "Seq Scan") scanned.insert(node.value("Relation Name", ""));
    if (node.contains("Plans"))
      for (const auto& child : node["Plans"]) self(self, child);
  };
  walk(walk, nlohmann::json::parse(explain_json)[0]["Plan"]);
  std::set<std::string> big;
  for (const std::string& relation : scanned) {
    const db::Result rows = conn.ExecText(
        "SELECT reltuples FROM pg_catalog.pg_class WHERE relname = $1 "
        "AND relnamespace = 'chopar'::regnamespace",
        db::Params(relation));
    if (!rows.Empty() && rows.Double(0, 0) >= min_rows) big.insert(relation);
  }
  return big;
}

}  // namespace chopar::testing
