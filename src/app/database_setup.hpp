#pragma once

#include <optional>
#include <string>

#include "app/config.hpp"
#include "db/embedded_cluster.hpp"
#include "db/pool.hpp"

namespace chopar::app {

// Resolves where the database is: the configured URL (and [database]
// listen_url, prepared_statements), or the embedded cluster in <data_dir>/pg
// (started or reused). Applies migrations.
class DatabaseSetup {
 public:
  explicit DatabaseSetup(const Config& config);
  ~DatabaseSetup();
  DatabaseSetup(const DatabaseSetup&) = delete;
  DatabaseSetup& operator=(const DatabaseSetup&) = delete;

  [[nodiscard]] const std::string& conninfo() const { return pool_.conninfo; }
  // The pool of this process: [database] url, listen_url, pool_size and
  // prepared_statements (false: db::ServerPooling::kTransaction).
  [[nodiscard]] const db::PoolSettings& pool_settings() const { return pool_; }
  [[nodiscard]] bool embedded() const { return cluster_.has_value(); }
  // Where the embedded cluster's files are (empty for an external database).
  [[nodiscard]] std::string location() const;

  // Applies pending migrations over a direct connection (listen_url when
  // set: the migration lock is held by a session); returns how many.
  int MigrateNow();

 private:
  std::optional<db::EmbeddedCluster> cluster_;
  db::PoolSettings pool_;
};

}  // namespace chopar::app
