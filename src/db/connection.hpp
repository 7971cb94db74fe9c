#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/c_handle.hpp"
#include "db/params.hpp"
#include "db/query.hpp"
#include "db/result.hpp"

namespace chopar::db {

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

// What stands between chopar and the server ([database] prepared_statements
// in docs/configuration.md). chopar's own statements name every table with
// its schema and need no session state either way; what differs is how
// statements travel and how the session's settings are made.
enum class ServerPooling {
  // Each connection is a server session of its own: statements are prepared
  // once per connection under their query's name, and TimeZone=UTC, jit=off,
  // search_path=chopar,public, the statement timeout and the ServerSettings
  // are sent in the startup packet.
  kNone,
  // A pooler in transaction mode (PgBouncer) that may run each transaction
  // on another server session, knows no named prepared statements and
  // refuses startup options: every statement is sent unnamed (parsed and
  // planned each time), TimeZone=UTC is SET once after connecting (the
  // pooler carries it to whichever server session runs the client's next
  // transaction), and each transaction (Begin) sets jit off, the default
  // statement timeout and then the ServerSettings for itself (SET LOCAL).
  // A statement run outside Begin runs without them (docs/operations.md).
  kTransaction,
};

// One libpq connection; move-only, not thread-safe (one thread at a time).
// Every session runs with TimeZone=UTC (see ServerPooling) and, directly
// connected, search_path=chopar and the limits of a default SessionSettings
// (db/session_settings.hpp) unless its conninfo sets its own
// (WithSessionSettings). Statement failures throw the DbError subclass of
// their SQLSTATE, whose message is the server's primary message without
// DETAIL (that may quote the row: an email, a body); a lost connection
// throws ConnectionError and leaves IsBroken() true.
class Connection {
 public:
  // Connects to `conninfo` (URL or key=value), the session starting with
  // `settings` too (per transaction under ServerPooling::kTransaction).
  // Throws ConnectionError, also when the server does not answer within the
  // connect timeout.
  static Connection Open(const std::string& conninfo, const ServerSettings& settings = {},
                         ServerPooling pooling = ServerPooling::kNone);

  // BEGIN, and with ServerPooling::kTransaction the transaction's own
  // settings, in one round trip.
  void Begin();

  // Runs a query: as a prepared statement named after the query, prepared
  // on first use (ServerPooling::kNone), or unnamed. A prepared query runs
  // under its own Plan: when it differs from the session's, the session's
  // plan_cache_mode is set first, in the same round trip.
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
  // Runs SQL text once with parameters (no prepare), under whatever plan
  // mode the session has (see Exec): for statements with nothing to plan
  // (SET, SAVEPOINT, SELECT 1) and on connections of their own (migrations).
  Result ExecText(std::string_view sql, const Params& params);
  // Runs one or more statements without parameters (migrations, BEGIN,
  // LISTEN), under whatever plan mode the session has, as ExecText.
  void ExecScript(std::string_view sql);

  // LISTEN on a channel (quoted as an identifier).
  void Listen(std::string_view channel);
  // Waits until the socket has data or `timeout` passes, then returns every
  // notification received. Throws ConnectionError if the connection drops.
  std::vector<Notification> WaitForNotifications(std::chrono::milliseconds timeout);

  [[nodiscard]] bool IsBroken() const;
  // Whether a statement found the server taking no writes (ServerReadOnly):
  // broken then, and so is every other session with that server for
  // chopar's work (db::Pool drops them all).
  [[nodiscard]] bool FoundServerReadOnly() const { return found_read_only_; }
  // For an idle connection: false when the server has closed it (a restart,
  // pg_terminate_backend) and the socket says so already; no round trip,
  // never blocks. A connection the network dropped silently still looks
  // alive: its next statement fails (or times out) instead.
  [[nodiscard]] bool LooksAlive();
  [[nodiscard]] PGconn* raw() const { return conn_.get(); }
  [[nodiscard]] ServerPooling pooling() const { return pooling_; }
  // Exchanges with the server so far: each statement, pipeline, script and
  // prepare waits for its answers once.
  [[nodiscard]] std::uint64_t round_trips() const { return round_trips_; }

 private:
  Connection(PGconn* conn, ServerPooling pooling, std::string begin)
      : conn_(conn), pooling_(pooling), begin_(std::move(begin)) {}
  Result Check(PGresult* result);
  void Prepare(const Query& query);
  // Sends one statement of a pipeline; false when libpq refused it.
  bool SendInPipeline(const Statement& statement);
  std::vector<Result> ReadPipelineResults(std::size_t count);
  // `statements` with the switches of plan_cache_mode their queries need
  // put before them (ServerPooling::kNone), and the mode the session then
  // ends with.
  std::pair<std::vector<Statement>, Plan> WithPlanSwitches(
      std::span<const Statement> statements) const;
  // Forgets the session's plan mode: a failed statement or a rollback undid
  // a switch made in its transaction. The next prepared query sets it.
  void ForgetPlanMode() { session_plan_.reset(); }
  void ForgetPlanModeOnRollback(std::string_view sql);
  std::vector<Result> ExecPipelineAsGiven(std::span<const Statement> statements);
  std::vector<Notification> DrainNotifications();

  core::CHandle<PGconn, PQfinish> conn_;
  ServerPooling pooling_;
  // What Begin sends: "BEGIN", then the transaction's own settings.
  std::string begin_;
  std::unordered_set<std::string> prepared_;
  // The plan_cache_mode the session runs with as far as chopar knows:
  // PostgreSQL's default (kAuto) until a query of another Plan set it;
  // unknown after a failure or rollback.
  std::optional<Plan> session_plan_ = Plan::kAuto;
  // Set when a pipeline ended in a state this connection cannot be trusted
  // after (the pool then closes it).
  bool poisoned_ = false;
  bool found_read_only_ = false;
  std::uint64_t round_trips_ = 0;
};

}  // namespace chopar::db
