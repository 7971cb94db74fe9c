#include "app/database_setup.hpp"

#include "db/connection.hpp"
#include "db/migrate.hpp"

namespace chopar::app {

DatabaseSetup::DatabaseSetup(const Config& config) {
  pool_.size = config.database.pool_size;
  if (!config.database.url.empty()) {
    pool_.conninfo = config.database.url;
    pool_.listen_conninfo = config.database.listen_url;
    pool_.pooling = config.database.prepared_statements ? db::ServerPooling::kNone
                                                        : db::ServerPooling::kTransaction;
    return;
  }
  cluster_ = db::EmbeddedCluster::Start(std::filesystem::path(config.server.data_dir) / "pg",
                                        config.database.pg_bin_dir);
  pool_.conninfo = cluster_->conninfo();
}

DatabaseSetup::~DatabaseSetup() {
  if (cluster_) cluster_->StopIfUnused();
}

std::string DatabaseSetup::location() const { return cluster_ ? cluster_->folder().string() : ""; }

int DatabaseSetup::MigrateNow() {
  auto conn =
      db::Connection::Open(pool_.listen_conninfo.empty() ? pool_.conninfo : pool_.listen_conninfo);
  return db::Migrate(conn);
}

}  // namespace chopar::app
