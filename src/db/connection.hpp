#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "db/params.hpp"
#include "db/query.hpp"
#include "db/result.hpp"

namespace chopar::db {

struct PgConnDeleter {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};

// A NOTIFY received on a LISTENing connection.
struct Notification {
  std::string channel;
  std::string payload;
};

// A prepared statement with its parameters, for Connection::ExecPipeline.
struct Statement {
  Query query;
  Params params;
};

// Server settings a session starts with besides Connection::Open's own:
// parameter name → value (custom ones are dotted, "chopar.events").
using ServerSettings = std::map<std::string, std::string>;

// One libpq connection; move-only, not thread-safe (one thread at a time).
// Every session runs with TimeZone=UTC and search_path=chopar, and under the
// limits of a default SessionSettings (db/session_settings.hpp) unless its
// conninfo sets its own (WithSessionSettings). Statement failures throw the
// DbError subclass of their SQLSTATE; a lost connection throws
// ConnectionError and leaves IsBroken() true.
class Connection {
 public:
  // Connects to `conninfo` (URL or key=value), the session starting with
  // `settings` too. Throws ConnectionError, also when the server does not
  // answer within the connect timeout.
  static Connection Open(const std::string& conninfo, const ServerSettings& settings = {});

  // Runs a named query as a prepared statement, preparing it on first use.
  Result Exec(const Query& query, const Params& params);
  template <typename... Args>
  Result Exec(const Query& query, const Args&... args) {
    return Exec(query, Params(args...));
  }
  // Runs prepared statements one after another in a single round trip
  // (libpq pipeline mode) and returns their results in order. Each sees the
  // effects of the ones before it, as if run by Exec one by one. The first
  // failure throws its typed error; the statements after it are not run.
  // Outside a transaction the pipeline is one implicit transaction: a
  // failure also undoes the statements before it.
  std::vector<Result> ExecPipeline(std::span<const Statement> statements);
  // Runs SQL text once with parameters (no prepare).
  Result ExecText(std::string_view sql, const Params& params);
  // Runs one or more statements without parameters (migrations, BEGIN, LISTEN).
  void ExecScript(std::string_view sql);

  // LISTEN on a channel (quoted as an identifier).
  void Listen(std::string_view channel);
  // Waits until the socket has data or `timeout` passes, then returns every
  // notification received. Throws ConnectionError if the connection drops.
  std::vector<Notification> WaitForNotifications(std::chrono::milliseconds timeout);

  [[nodiscard]] bool IsBroken() const;
  // For an idle connection: false when the server has closed it (a restart,
  // pg_terminate_backend) and the socket says so already; no round trip,
  // never blocks. A connection the network dropped silently still looks
  // alive: its next statement fails (or times out) instead.
  [[nodiscard]] bool LooksAlive();
  [[nodiscard]] PGconn* raw() const { return conn_.get(); }

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}
  Result Check(PGresult* result);
  void Prepare(const Query& query);
  std::vector<Result> ReadPipelineResults(std::size_t count);
  std::vector<Notification> DrainNotifications();

  std::unique_ptr<PGconn, PgConnDeleter> conn_;
  std::unordered_set<std::string> prepared_;
  // Set when a pipeline ended in a state this connection cannot be trusted
  // after (the pool then closes it).
  bool poisoned_ = false;
};

}  // namespace chopar::db
