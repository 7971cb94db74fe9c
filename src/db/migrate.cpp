#include "db/migrate.hpp"

#include <spdlog/spdlog.h>

#include <functional>
#include <set>

#include "db/migrations_embedded.hpp"

namespace chopar::db {
namespace {
// Arbitrary constant shared by every chopar process: "chopar" in ASCII.
constexpr const char* kMigrationLockKey = "109300197384562";
}  // namespace

std::span<const Migration> EmbeddedMigrations() { return kMigrations; }

int Migrate(Connection& conn, std::span<const Migration> migrations) {
  conn.ExecScript(std::string("SELECT pg_advisory_lock(") + kMigrationLockKey + ")");
  int applied = 0;
  try {
    conn.ExecScript(
        "CREATE SCHEMA IF NOT EXISTS chopar;"
        "CREATE TABLE IF NOT EXISTS chopar.schema_migrations ("
        " version integer PRIMARY KEY, name text NOT NULL,"
        " applied_at timestamptz NOT NULL DEFAULT now())");
    // Every embedded migration not yet recorded, so a number filled in later
    // (or merged out of order) is still applied.
    const Result current = conn.ExecText("SELECT version FROM chopar.schema_migrations", {});
    std::set<std::int64_t> applied_versions;
    for (int row = 0; row < current.Rows(); ++row) applied_versions.insert(current.Int(row, 0));
    for (const Migration& migration : migrations) {
      if (applied_versions.contains(migration.version)) continue;
      spdlog::info("applying migration {}", migration.name);
      conn.ExecScript("BEGIN");
      try {
        conn.ExecScript(migration.sql);
        conn.ExecText("INSERT INTO chopar.schema_migrations (version, name) VALUES ($1, $2)",
                      Params(migration.version, migration.name));
        conn.ExecScript("COMMIT");
      } catch (...) {
        if (!conn.IsBroken()) conn.ExecScript("ROLLBACK");
        throw;
      }
      ++applied;
    }
  } catch (...) {
    if (!conn.IsBroken()) conn.ExecScript(std::string("SELECT pg_advisory_unlock(") + kMigrationLockKey + ")");
    throw;
  }
  conn.ExecScript(std::string("SELECT pg_advisory_unlock(") + kMigrationLockKey + ")");
  return applied;
}

std::string MigrationsFingerprint() {
  std::size_t hash = 0;
  for (const Migration& migration : kMigrations) {
    hash = hash * 31 + std::hash<std::string_view>{}(migration.sql);
  }
  return std::to_string(hash % 1000000007);
}

}  // namespace chopar::db
