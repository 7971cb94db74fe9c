#include "app/database_setup.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <thread>

#include "db/channel_kinds.hpp"
#include "db/connection.hpp"
#include "db/errors.hpp"
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

// A connection error that waiting cannot cure: the server answered and
// refused the account or the database asked for, or the URL is malformed
// (libpq's own texts; a server's localized ones fall to waiting).
bool WaitingCannotCure(const db::ConnectionError& error) {
  constexpr std::array<std::string_view, 5> kPermanent = {
      "authentication failed", "does not exist", "no pg_hba.conf entry",
      "invalid connection option", "invalid URI"};
  const std::string_view what = error.what();
  return std::any_of(kPermanent.begin(), kPermanent.end(), [&](std::string_view text) {
    return what.find(text) != std::string_view::npos;
  });
}

}  // namespace

DatabaseSetup::DatabaseSetup(const Config& config) : startup_wait_(config.database.startup_wait) {
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
  using std::chrono::steady_clock;
  const auto give_up = steady_clock::now() + startup_wait_;
  // Half a second, doubling to 5 s: soon after a quick restart, and a line
  // in the log every few seconds through a long one.
  std::chrono::milliseconds pause(500);
  for (;;) {
    try {
      auto conn = db::Connection::Open(direct_conninfo());
      const int applied = db::Migrate(conn);
      db::RegisterChannelKinds(conn);
      return applied;
    } catch (const db::ConnectionError& e) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(give_up - steady_clock::now());
      if (WaitingCannotCure(e) || left <= std::chrono::milliseconds::zero()) throw;
      spdlog::warn(
          "no database server takes writes yet ({}); trying again for {} s more ([database] "
          "startup_wait_seconds)",
          e.what(), std::chrono::ceil<std::chrono::seconds>(left).count());
      std::this_thread::sleep_for(std::min(pause, left));
      pause = std::min(pause * 2, std::chrono::milliseconds(5000));
    }
  }
}

db::PoolSettings CommandPoolSettings(DatabaseSetup& database, int size) {
  database.MigrateNow();
  db::PoolSettings settings = database.pool_settings();
  settings.size = size;
  return settings;
}

}  // namespace chopar::app
