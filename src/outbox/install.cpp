#include "outbox/install.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "core/c_handle.hpp"
#include "db/errors.hpp"
#include "db/migrate.hpp"
#include "outbox/queries.hpp"

namespace chopar::outbox {
namespace {

// The migrations that make up the outbox, in order: what an application's
// database gets. Add a later migration's version here when it changes the
// outbox's objects.
constexpr std::array<int, 1> kOutboxMigrations = {10};

// Serialises concurrent installs into one database.
constexpr const char* kInstallLock =
    "SELECT pg_advisory_xact_lock(hashtext('chopar outbox install'))";

std::string QuotedIdentifier(db::Connection& conn, const std::string& name) {
  const core::CHandle<char, PQfreemem> quoted(
      PQescapeIdentifier(conn.raw(), name.c_str(), name.size()));
  if (!quoted) throw db::DbError("", "cannot quote role name " + name);
  return quoted.get();
}

std::string WithRole(std::string sql, const std::string& role) {
  constexpr std::string_view kPlaceholder = "{role}";
  for (auto at = sql.find(kPlaceholder); at != std::string::npos;
       at = sql.find(kPlaceholder, at + role.size())) {
    sql.replace(at, kPlaceholder.size(), role);
  }
  return sql;
}

// Refuses a role that does not exist; for the app role, also one no
// privilege would restrict.
void CheckRole(db::Connection& conn, const std::string& role, bool is_app_role) {
  const db::Result row = conn.Exec(queries::kInstallChecks, db::Params(role));
  if (row.Empty()) {
    throw InstallError("role " + role + " does not exist; create it first (CREATE ROLE " + role +
                       " LOGIN …)");
  }
  if (!is_app_role) return;
  if (row.Bool(0, "superuser")) {
    throw InstallError("role " + role + " is a superuser: no privilege would restrict it");
  }
  if (row.Bool(0, "owns_outbox")) {
    throw InstallError(
        "role " + role +
        " owns chopar.outbox (or belongs to its owner), so privileges cannot restrict it; "
        "install as another role");
  }
}

// Refuses a schema chopar that exists already and belongs to another role:
// its owner could have put functions, operators or triggers in it that the
// installer (and then the relay) would run with their own rights.
void CheckSchemaOwner(db::Connection& conn) {
  const db::Result row = conn.Exec(queries::kInstallSchemaOwner);
  if (row.Empty() || row.Bool(0, "installer_owns")) return;
  const std::string owner = row.String(0, "owner");
  const std::string installer = row.String(0, "installer");
  throw InstallError(
      "schema chopar already exists and is owned by role " + owner + ", not by " + installer +
      " that installs: " + owner +
      " could have put functions or triggers in it that chopar would run. Check what it holds, "
      "then drop it (DROP SCHEMA chopar CASCADE) or, if " + owner +
      " is trusted, hand it over (ALTER SCHEMA chopar OWNER TO " + installer +
      "), and run the install again");
}

}  // namespace

std::vector<std::string> Install(db::Connection& conn, const InstallOptions& options) {
  if (options.app_role && options.relay_role && *options.app_role == *options.relay_role) {
    throw InstallError("the app role and the relay role must differ");
  }
  std::vector<std::string> steps;
  conn.ExecScript("BEGIN");
  try {
    conn.ExecScript(kInstallLock);
    CheckSchemaOwner(conn);
    const auto migrations = db::EmbeddedMigrations();
    for (int version : kOutboxMigrations) {
      const auto m = std::find_if(
          migrations.begin(), migrations.end(),
          [&](const db::Migration& candidate) { return candidate.version == version; });
      conn.ExecScript(m->sql);
      steps.push_back(std::string("schema: ") + m->name +
                      " (chopar.outbox, chopar.inbox, chopar.emit)");
    }
    if (options.app_role) {
      CheckRole(conn, *options.app_role, true);
      conn.ExecScript(
          WithRole(queries::kGrantAppRole.sql, QuotedIdentifier(conn, *options.app_role)));
      steps.push_back("app role " + *options.app_role +
                      ": EXECUTE chopar.emit, INSERT chopar.outbox and chopar.inbox; nothing else");
    }
    if (options.relay_role) {
      CheckRole(conn, *options.relay_role, false);
      conn.ExecScript(
          WithRole(queries::kGrantRelayRole.sql, QuotedIdentifier(conn, *options.relay_role)));
      steps.push_back("relay role " + *options.relay_role +
                      ": SELECT, UPDATE, DELETE chopar.outbox");
    }
    conn.ExecScript("COMMIT");
  } catch (...) {
    try {
      if (!conn.IsBroken()) conn.ExecScript("ROLLBACK");
    } catch (const std::exception&) {
      // The first failure is the one worth reporting.
    }
    throw;
  }
  return steps;
}

}  // namespace chopar::outbox
