#include "testing/pgbouncer.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "core/c_handle.hpp"
#include "db/connection.hpp"

namespace chopar::testing {
namespace {

constexpr const char* kProgram = "/usr/sbin/pgbouncer";

// The value of `key` in the query string of a URL ("" when absent).
std::string QueryValue(const std::string& url, const std::string& key) {
  const auto query = url.find('?');
  if (query == std::string::npos) return "";
  std::size_t at = query + 1;
  while (at < url.size()) {
    const auto end = std::min(url.find('&', at), url.size());
    const std::string pair = url.substr(at, end - at);
    if (pair.rfind(key + "=", 0) == 0) return pair.substr(key.size() + 1);
    at = end + 1;
  }
  return "";
}

using PgConnPtr = core::CHandle<PGconn, PQfinish>;

// A connection to the admin console (a plain one: the console knows no SET
// but its own settings); null when it cannot be opened.
PgConnPtr AdminConnection(int port) {
  const std::string url = "postgresql://postgres@127.0.0.1:" + std::to_string(port) + "/pgbouncer";
  PgConnPtr conn(PQconnectdb(url.c_str()));
  if (conn == nullptr || PQstatus(conn.get()) != CONNECTION_OK) return nullptr;
  return conn;
}

}  // namespace

std::string DatabaseOf(const std::string& url) {
  const auto scheme = url.find("://");
  const auto slash = url.find('/', scheme + 3);
  const auto query = url.find('?', slash);
  return url.substr(slash + 1, query == std::string::npos ? std::string::npos : query - slash - 1);
}

bool PgBouncer::Available() { return access(kProgram, X_OK) == 0; }

PgBouncer::PgBouncer(const std::filesystem::path& dir) {
  const char* server = std::getenv("CHOPAR_TEST_DATABASE_URL");
  if (server == nullptr) throw std::runtime_error("CHOPAR_TEST_DATABASE_URL is not set");
  const std::string socket_dir = QueryValue(server, "host");
  port_ = FreeLoopbackPort();
  const std::filesystem::path ini = dir / "pgbouncer.ini";
  std::ofstream(ini) << "[databases]\n"
                     << "* = host=" << socket_dir << " user=postgres\n"
                     << "[pgbouncer]\n"
                     << "listen_addr = 127.0.0.1\n"
                     << "listen_port = " << port_ << "\n"
                     << "unix_socket_dir =\n"
                     << "auth_type = any\n"
                     << "admin_users = postgres\n"
                     << "pool_mode = transaction\n"
                     << "max_client_conn = 1000\n"
                     << "default_pool_size = 20\n";
  std::vector<std::string> argv = {kProgram};
  // PgBouncer refuses to run as root; it switches to the server's account.
  if (geteuid() == 0) argv.insert(argv.end(), {"-u", "postgres"});
  argv.push_back(ini.string());
  process_ = std::make_unique<ChildProcess>(argv, std::map<std::string, std::string>{},
                                            dir / "pgbouncer.log");
  const bool up =
      WaitUntil([&] { return !process_->Running() || AdminConnection(port_) != nullptr; },
                std::chrono::seconds(20));
  if (!up || !process_->Running()) {
    throw std::runtime_error("pgbouncer did not start:\n" + process_->Output());
  }
}

PgBouncer::~PgBouncer() {
  process_->Signal(SIGINT);  // PgBouncer's immediate shutdown
  if (process_->Wait(std::chrono::seconds(10)) < 0) process_->Signal(SIGKILL);
}

std::string PgBouncer::Url(const std::string& direct_url) const {
  return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + DatabaseOf(direct_url);
}

std::int64_t PgBouncer::Transactions(const std::string& database) const {
  const PgConnPtr admin = AdminConnection(port_);
  if (admin == nullptr) throw std::runtime_error("pgbouncer's admin console does not answer");
  // The admin console speaks only the simple query protocol.
  const std::unique_ptr<PGresult, decltype(&PQclear)> stats(PQexec(admin.get(), "SHOW STATS"),
                                                            PQclear);
  const int database_column = PQfnumber(stats.get(), "database");
  const int xacts_column = PQfnumber(stats.get(), "total_xact_count");
  for (int row = 0; row < PQntuples(stats.get()); ++row) {
    if (database == PQgetvalue(stats.get(), row, database_column)) {
      return std::stoll(PQgetvalue(stats.get(), row, xacts_column));
    }
  }
  return 0;
}

}  // namespace chopar::testing
