#pragma once

#include <optional>
#include <string>

#include "app/config.hpp"
#include "db/embedded_cluster.hpp"

namespace chopar::app {

// Resolves where the database is: the configured URL, or the embedded
// cluster in <data_dir>/pg (started or reused), with the [database] session
// limits written into the conninfo. Applies migrations.
class DatabaseSetup {
 public:
  explicit DatabaseSetup(const Config& config);
  ~DatabaseSetup();
  DatabaseSetup(const DatabaseSetup&) = delete;
  DatabaseSetup& operator=(const DatabaseSetup&) = delete;

  [[nodiscard]] const std::string& conninfo() const { return conninfo_; }
  [[nodiscard]] bool embedded() const { return cluster_.has_value(); }
  // Where the embedded cluster's files are (empty for an external database).
  [[nodiscard]] std::string location() const;

  // Applies pending migrations; returns how many.
  int MigrateNow();

 private:
  std::optional<db::EmbeddedCluster> cluster_;
  std::string conninfo_;
};

}  // namespace chopar::app
