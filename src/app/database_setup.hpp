#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "app/config.hpp"
#include "db/embedded_cluster.hpp"
#include "db/pool.hpp"
#include "db/read_router.hpp"

namespace chopar::app {

// Resolves where the database is: the configured URL (and [database]
// listen_url, prepared_statements), or the embedded cluster in <data_dir>/pg
// (started or reused), with the [database] session limits written into the
// conninfo (or, behind a transaction-mode pooler, into the pool's per-
// transaction settings). Applies migrations.
class DatabaseSetup {
 public:
  explicit DatabaseSetup(const Config& config);
  ~DatabaseSetup();
  DatabaseSetup(const DatabaseSetup&) = delete;
  DatabaseSetup& operator=(const DatabaseSetup&) = delete;

  [[nodiscard]] const std::string& conninfo() const { return pool_.conninfo; }
  // The pool of this process: [database] url, listen_url, pool_size and
  // prepared_statements (false: db::ServerPooling::kTransaction).
  // The LISTEN conninfo is empty unless listen_url is set.
  [[nodiscard]] const db::PoolSettings& pool_settings() const { return pool_; }
  // Where the inbox's and the console's reads go ([database] read_url, then
  // read_urls: a pool each, connecting like url: the same session limits,
  // pooling and pool_size) and the read-your-writes and lag bounds; nullopt
  // when both are empty (they use the primary pool).
  [[nodiscard]] const std::optional<db::ReadRouterSettings>& read_router_settings() const {
    return reads_;
  }
  // A direct connection to the server (listen_url when set, else the pool's
  // conninfo): for migrations, LISTEN and session-level work.
  [[nodiscard]] const std::string& direct_conninfo() const {
    return pool_.listen_conninfo.empty() ? pool_.conninfo : pool_.listen_conninfo;
  }
  [[nodiscard]] bool embedded() const { return cluster_.has_value(); }
  // Where the embedded cluster's files are (empty for an external database).
  [[nodiscard]] std::string location() const;

  // Applies pending migrations over a direct connection (listen_url when
  // set: the migration lock is held by a session); returns how many. While
  // no server takes writes (refused, still starting, read-only, a failover
  // under way) it tries again, saying so in the log, for up to [database]
  // startup_wait_seconds; an error waiting cannot cure (a wrong password or
  // database name, a malformed URL) and the last one after the wait throw.
  int MigrateNow();

 private:
  std::chrono::seconds startup_wait_;
  std::optional<db::EmbeddedCluster> cluster_;
  db::PoolSettings pool_;
  std::optional<db::ReadRouterSettings> reads_;
};

// What a one-off command (`chopar schedules import`, `chopar users …`)
// works on: `database` migrated now, and the settings of a pool of `size`
// connections on it. Throws as MigrateNow does.
db::PoolSettings CommandPoolSettings(DatabaseSetup& database, int size);

}  // namespace chopar::app
