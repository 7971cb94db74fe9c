#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/connection.hpp"

namespace chopar::outbox {

// Roles to grant (`chopar outbox install --app-role … --relay-role …`).
struct InstallOptions {
  // May call chopar.emit and INSERT into chopar.outbox and chopar.inbox;
  // everything else on them is revoked (SELECT, UPDATE, DELETE → permission
  // denied).
  std::optional<std::string> app_role;
  // May SELECT, UPDATE and DELETE chopar.outbox (claim, mark, retention).
  std::optional<std::string> relay_role;
};

// A role the install refuses; nothing was changed.
class InstallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Installs the outbox into an application's database, idempotently, in one
// transaction: schema chopar with chopar.outbox, chopar.inbox, chopar.emit
// and the NOTIFY trigger (the outbox migrations of sql/migrations, which
// chopar's own database gets from `chopar migrate`), then the grants of
// `options`. Concurrent installs serialise on an advisory lock. Returns what
// it did, a line per step, for the command line to print.
//
// Throws InstallError — before anything is committed — for a schema chopar
// that exists already and is owned by another role than the installing one
// (current_user: its owner could have planted functions or triggers that
// chopar would run; re-running the install as its owner is fine), a role
// that does not exist, an app role that is a superuser or owns the outbox (directly or
// through membership: privileges cannot restrict an owner), or the same
// role for both; db::DbError when the database refuses (e.g. no CREATE
// privilege on the database).
std::vector<std::string> Install(db::Connection& conn, const InstallOptions& options);

}  // namespace chopar::outbox
