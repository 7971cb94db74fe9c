#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "testing/child_process.hpp"

namespace chopar::testing {

// A PgBouncer (Debian's pgbouncer 1.18: no named prepared statements) in
// transaction mode in front of the test server (CHOPAR_TEST_DATABASE_URL,
// reached on its Unix socket), started for one test with its configuration
// and log in `dir`, listening on 127.0.0.1 only. Every database of the server
// is reachable through it, logged in as postgres. Stopped on destruction.
// Not thread-safe.
class PgBouncer {
 public:
  // Whether the pgbouncer program is installed (scripts/install-deps).
  static bool Available();

  // Starts it and waits until it accepts connections; throws
  // std::runtime_error (with its log) when it does not.
  explicit PgBouncer(const std::filesystem::path& dir);
  ~PgBouncer();
  PgBouncer(const PgBouncer&) = delete;
  PgBouncer& operator=(const PgBouncer&) = delete;

  // `direct_url` (a postgresql:// URL of the test server) through the bouncer.
  [[nodiscard]] std::string Url(const std::string& direct_url) const;
  // The number of transactions the bouncer has run for `database` (its
  // admin console's SHOW STATS), to check that traffic went through it.
  [[nodiscard]] std::int64_t Transactions(const std::string& database) const;
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string Log() const { return process_->Output(); }

 private:
  int port_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

// The database name of a postgresql:// URL ("postgresql:///db?host=…" → "db").
std::string DatabaseOf(const std::string& url);

}  // namespace chopar::testing
