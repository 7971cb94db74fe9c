// Every statement chopar sends, checked against a real schema: each one
// parses with an empty search_path, so none relies on a session setting that
// a transaction-mode pooler (PgBouncer) would not keep.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "db/connection.hpp"
#include "statement_list.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

// Every statement chopar sends, whichever area it belongs to.
class StatementsTest : public testing::PgTest {};

TEST_F(StatementsTest, EveryQueryNamesItsTablesWithTheSchema) {
  db::Connection conn = db::Connection::Open(db_->url(), {}, db::ServerPooling::kTransaction);
  conn.ExecScript("SET search_path = ''");
  int checked = 0;
  for (const auto& statement : app::AllStatements()) {
    const db::Query& query = *statement.query;
    const std::string sql = query.sql;
    if (const auto role = sql.find("{role}"); role != std::string::npos) {
      // A script with a role name written in (outbox install's grants):
      // run it for the current user, then undo it.
      std::string script = sql;
      for (auto at = role; at != std::string::npos; at = script.find("{role}", at))
        script.replace(at, 6, "CURRENT_USER");
      conn.ExecScript("BEGIN");
      EXPECT_NO_THROW(conn.ExecScript(script)) << statement.file;
      conn.ExecScript("ROLLBACK");
      ++checked;
      continue;
    }
    // Parse and analyse only: every name is looked up, nothing runs.
    const std::unique_ptr<PGresult, decltype(&PQclear)> parsed(
        PQprepare(conn.raw(), "", query.sql, 0, nullptr), PQclear);
    EXPECT_EQ(PQresultStatus(parsed.get()), PGRES_COMMAND_OK)
        << statement.file << ": " << PQresultErrorMessage(parsed.get());
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace chopar
