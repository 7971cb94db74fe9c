#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/connection.hpp"
#include "db/migration.hpp"

namespace chopar::db {

// The migrations embedded in this binary, in version order.
std::span<const Migration> EmbeddedMigrations();

// How Migrate waits for the table locks a migration needs. A migration that
// cannot take a lock within `lock_timeout` (a long transaction holds the
// table) is undone and tried again after `pause`, up to `tries` times in
// all: while a DDL statement waits for its lock, every statement on that
// table queues behind it, so it must never wait long.
struct MigrateOptions {
  std::chrono::milliseconds lock_timeout{std::chrono::seconds(2)};
  int tries = 10;
  std::chrono::milliseconds pause{std::chrono::seconds(3)};
};

// Applies every migration not yet recorded in chopar.schema_migrations, in
// version order, and records each. A migration runs in one transaction,
// unless its first line is kNoTransactionMarker: then each of its statements
// runs on its own (what CREATE INDEX CONCURRENTLY and DROP INDEX
// CONCURRENTLY require), and it is recorded after its last statement — such
// a migration must be safe to run again from its start (DROP INDEX
// CONCURRENTLY IF EXISTS before CREATE INDEX CONCURRENTLY: a failed
// concurrent build leaves an invalid index behind).
//
// Safe to run from several processes at once: a session advisory lock
// serialises them (the later ones wait, then find nothing left to do). The
// session runs without a statement timeout (an index build on a big table
// takes long) and with `options.lock_timeout`; the session's settings are
// restored afterwards. Returns how many were applied. Throws DbError if one
// fails (a transactional one is rolled back; earlier ones stay), or
// LockNotAvailable when one could not get its locks in `options.tries`
// tries.
int Migrate(Connection& conn, std::span<const Migration> migrations = EmbeddedMigrations(),
            const MigrateOptions& options = {});

// The first line of a migration whose statements must run outside a
// transaction block.
inline constexpr std::string_view kNoTransactionMarker = "-- migrate: no transaction";

// The statements of a SQL script, split at the semicolons that end them
// (not those inside quotes, quoted identifiers, dollar-quoted bodies or
// comments), each trimmed; comment-only pieces are dropped. Pure.
std::vector<std::string> SplitSqlStatements(std::string_view script);

// A short fingerprint of the embedded migrations, used to name test templates.
std::string MigrationsFingerprint();

}  // namespace chopar::db
