#include "outbox/emit.hpp"

#include <stdexcept>

#include "db/errors.hpp"
#include "outbox/queries.hpp"

namespace chopar::outbox {
namespace {

db::Params EmitParams(std::string_view type, std::optional<std::int64_t> user_id,
                      const nlohmann::json& payload) {
  db::Params params;
  params.Add(type).Add(user_id).Add(payload.dump());
  return params;
}

// Runs `query` once on an application's connection that must be inside a
// transaction block; throws the DbError of its SQLSTATE on failure.
db::Result ExecInTransaction(PGconn* conn, const db::Query& query, const db::Params& params) {
  if (conn == nullptr || PQtransactionStatus(conn) != PQTRANS_INTRANS) {
    throw std::logic_error(std::string(query.name) +
                           ": the connection must be inside a transaction block (BEGIN first)");
  }
  std::vector<const char*> values;
  for (const auto& value : params.values()) values.push_back(value ? value->c_str() : nullptr);
  PGresult* raw = PQexecParams(conn, query.sql, static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0);
  db::Result result(raw);  // owns `raw`
  if (result.Status() == PGRES_COMMAND_OK || result.Status() == PGRES_TUPLES_OK) return result;
  const char* state = raw != nullptr ? PQresultErrorField(raw, PG_DIAG_SQLSTATE) : nullptr;
  db::ThrowForSqlState(state != nullptr ? state : "",
                       raw != nullptr ? PQresultErrorMessage(raw) : PQerrorMessage(conn));
}

}  // namespace

std::string Emit(db::Transaction& tx, std::string_view type, std::optional<std::int64_t> user_id,
                 const nlohmann::json& payload) {
  return tx.Exec(queries::kEmit, EmitParams(type, user_id, payload)).String(0, 0);
}

std::string Emit(PGconn* conn, std::string_view type, std::optional<std::int64_t> user_id,
                 const nlohmann::json& payload) {
  return ExecInTransaction(conn, queries::kEmit, EmitParams(type, user_id, payload)).String(0, 0);
}

bool ConsumeOnce(db::Transaction& tx, std::string_view event_id) {
  return tx.Exec(queries::kConsumeOnce, db::Params(event_id)).AffectedRows() == 1;
}

bool ConsumeOnce(PGconn* conn, std::string_view event_id) {
  return ExecInTransaction(conn, queries::kConsumeOnce, db::Params(event_id)).AffectedRows() == 1;
}

}  // namespace chopar::outbox
