#include "app/database_setup.hpp"

#include "db/connection.hpp"
#include "db/migrate.hpp"
#include "db/session_settings.hpp"

namespace chopar::app {

DatabaseSetup::DatabaseSetup(const Config& config) {
  pool_.size = config.database.pool_size;
  if (config.database.url.empty()) {
    cluster_ = db::EmbeddedCluster::Start(std::filesystem::path(config.server.data_dir) / "pg",
                                          config.database.pg_bin_dir);
    // Every connection of the process, pooled or listening, inherits the limits.
    pool_.conninfo = db::WithSessionSettings(cluster_->conninfo(), config.database.session);
    return;
  }
  // The LISTEN connection is a direct one either way.
  if (!config.database.listen_url.empty()) {
    pool_.listen_conninfo =
        db::WithSessionSettings(config.database.listen_url, config.database.session);
  }
  if (config.database.prepared_statements) {
    pool_.conninfo = db::WithSessionSettings(config.database.url, config.database.session);
    return;
  }
  // A transaction-mode pooler refuses startup options, where the statement
  // timeout would go: each transaction sets it for itself instead
  // (db::ServerPooling::kTransaction).
  pool_.pooling = db::ServerPooling::kTransaction;
  pool_.conninfo = config.database.url;
  pool_.session["statement_timeout"] =
      std::to_string(config.database.session.statement_timeout.count() * 1000);
}

DatabaseSetup::~DatabaseSetup() {
  if (cluster_) cluster_->StopIfUnused();
}

std::string DatabaseSetup::location() const { return cluster_ ? cluster_->folder().string() : ""; }

int DatabaseSetup::MigrateNow() {
  auto conn = db::Connection::Open(direct_conninfo());
  return db::Migrate(conn);
}

}  // namespace chopar::app
