#include "app/database_setup.hpp"

#include "db/connection.hpp"
#include "db/migrate.hpp"
#include "db/session_settings.hpp"

namespace chopar::app {

DatabaseSetup::DatabaseSetup(const Config& config) {
  if (config.database.url.empty()) {
    cluster_ = db::EmbeddedCluster::Start(std::filesystem::path(config.server.data_dir) / "pg",
                                          config.database.pg_bin_dir);
  }
  // Every connection of the process, pooled or listening, inherits the limits.
  conninfo_ = db::WithSessionSettings(cluster_ ? cluster_->conninfo() : config.database.url,
                                      config.database.session);
}

DatabaseSetup::~DatabaseSetup() {
  if (cluster_) cluster_->StopIfUnused();
}

std::string DatabaseSetup::location() const { return cluster_ ? cluster_->folder().string() : ""; }

int DatabaseSetup::MigrateNow() {
  auto conn = db::Connection::Open(conninfo_);
  return db::Migrate(conn);
}

}  // namespace chopar::app
