#include "app/database_setup.hpp"

#include <algorithm>

#include "db/channel_kinds.hpp"
#include "db/connection.hpp"
#include "db/migrate.hpp"
#include "db/session_settings.hpp"

namespace chopar::app {
namespace {

// A pool on `url` as [database] says to connect: directly, with the session
// limits in the conninfo, or through a transaction-mode pooler.
db::PoolSettings PoolOn(const std::string& url, const Config::Database& database) {
  db::PoolSettings pool;
  pool.size = database.pool_size;
  if (database.prepared_statements) {
    pool.conninfo = db::WithSessionSettings(url, database.session);
    return pool;
  }
  // A transaction-mode pooler refuses startup options, where the statement
  // timeout would go: each transaction sets it for itself instead
  // (db::ServerPooling::kTransaction).
  pool.pooling = db::ServerPooling::kTransaction;
  pool.conninfo = url;
  pool.session["statement_timeout"] =
      std::to_string(database.session.statement_timeout.count() * 1000);
  return pool;
}

// read_url (first) and read_urls, each a pool; nullopt when there is none.
std::optional<db::ReadRouterSettings> ReadsOf(const Config::Database& database) {
  std::vector<std::string> urls = database.read_urls;
  if (!database.read_url.empty()) urls.insert(urls.begin(), database.read_url);
  if (urls.empty()) return std::nullopt;
  db::ReadRouterSettings reads;
  for (const std::string& url : urls) reads.standbys.push_back(PoolOn(url, database));
  reads.wait_for_lsn = std::chrono::milliseconds(database.read_your_writes_wait_ms);
  reads.max_lag = std::chrono::milliseconds(database.read_max_lag_ms);
  // A few checks within the bound, so a lag past it is seen soon after:
  // a quarter of it, from 20 ms to a second.
  reads.check_interval =
      std::clamp(reads.max_lag / 4, std::chrono::milliseconds(20), std::chrono::milliseconds(1000));
  return reads;
}

}  // namespace

DatabaseSetup::DatabaseSetup(const Config& config) {
  reads_ = ReadsOf(config.database);
  pool_.size = config.database.pool_size;
  if (config.database.url.empty()) {
    cluster_ = db::EmbeddedCluster::Start(std::filesystem::path(config.server.data_dir) / "pg",
                                          config.database.pg_bin_dir);
    // Every connection of the process, pooled or listening, inherits the limits.
    pool_.conninfo = db::WithSessionSettings(cluster_->conninfo(), config.database.session);
    return;
  }
  pool_ = PoolOn(config.database.url, config.database);
  // The LISTEN connection is a direct one either way.
  if (!config.database.listen_url.empty()) {
    pool_.listen_conninfo =
        db::WithSessionSettings(config.database.listen_url, config.database.session);
  }
}

DatabaseSetup::~DatabaseSetup() {
  if (cluster_) cluster_->StopIfUnused();
}

std::string DatabaseSetup::location() const { return cluster_ ? cluster_->folder().string() : ""; }

int DatabaseSetup::MigrateNow() {
  auto conn = db::Connection::Open(direct_conninfo());
  const int applied = db::Migrate(conn);
  db::RegisterChannelKinds(conn);
  return applied;
}

db::PoolSettings CommandPoolSettings(DatabaseSetup& database, int size) {
  database.MigrateNow();
  db::PoolSettings settings = database.pool_settings();
  settings.size = size;
  return settings;
}

}  // namespace chopar::app
