#pragma once

#include <span>
#include <string>

#include "db/connection.hpp"
#include "db/migration.hpp"

namespace chopar::db {

// The migrations embedded in this binary, in version order.
std::span<const Migration> EmbeddedMigrations();

// Applies every migration not yet recorded in the database, each in its own
// transaction, recording it in chopar.schema_migrations. Safe to run from
// several processes at once (a session advisory lock serialises them).
// Returns how many were applied. Throws DbError if one fails (that one is
// rolled back; earlier ones stay).
int Migrate(Connection& conn, std::span<const Migration> migrations = EmbeddedMigrations());

// A short fingerprint of the embedded migrations, used to name test templates.
std::string MigrationsFingerprint();

}  // namespace chopar::db
