#pragma once

#include <chrono>
#include <condition_variable>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/connection.hpp"

namespace chopar::db {

class Pool;

// A connection borrowed from a Pool; returned on destruction. A connection
// that broke while borrowed is dropped instead of returned. Move-only.
class PooledConnection {
 public:
  PooledConnection(Pool* pool, Connection conn) : pool_(pool), conn_(std::move(conn)) {}
  PooledConnection(PooledConnection&& other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)), conn_(std::move(other.conn_)) {
    other.conn_.reset();
  }
  PooledConnection& operator=(PooledConnection&&) = delete;
  ~PooledConnection();

  Connection& operator*() { return *conn_; }
  Connection* operator->() { return &*conn_; }
  // Hands this connection back (a broken one is dropped) and borrows
  // another from the same pool (Pool::Acquire; it may throw, and then this
  // holds none).
  void Reborrow();

 private:
  Pool* pool_;
  std::optional<Connection> conn_;
};

// A transaction that rolls back unless Commit() is called. The name appears in
// logs when it fails. Not thread-safe; move-only.
//
// Connected directly (ServerPooling::kNone), BEGIN is not a round trip of
// its own: it goes in the pipeline of the transaction's first statements
// (a transaction that runs nothing sends nothing). If that first round trip
// finds the borrowed connection dead (the server closed it after the pool
// checked it) or its server read-only (a failover), it is sent again once
// on another connection: it held no COMMIT, so nothing of it was committed.
// ExecAndCommit as the first call sends BEGIN ahead, alone, for the same
// reason. Behind a transaction pooler BEGIN and the transaction's settings
// are sent when it starts.
class Transaction {
 public:
  Transaction(PooledConnection conn, std::string_view name);
  Transaction(Transaction&& other) noexcept
      : conn_(std::move(other.conn_)),
        name_(std::move(other.name_)),
        open_(std::exchange(other.open_, false)),
        begin_pending_(std::exchange(other.begin_pending_, false)),
        deferred_(std::move(other.deferred_)) {}
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  template <typename... Args>
  Result Exec(const Query& query, const Args&... args) {
    return Exec(query, Params(args...));
  }
  // Runs the statement, after any deferred ones, in one round trip.
  Result Exec(const Query& query, const Params& params);
  // Queues a statement whose result is not needed; it runs with the next
  // Exec, ExecAndCommit or Commit, in the same round trip, and its failure
  // is thrown there. Nothing reaches the connection around the queue.
  template <typename... Args>
  void Defer(const Query& query, const Args&... args) {
    deferred_.push_back({query, Params(args...)});
  }
  void Defer(const Query& query, Params params) { deferred_.push_back({query, std::move(params)}); }
  // Runs SQL text once (no prepare: SAVEPOINT and the like), after the
  // deferred statements (which then take a round trip of their own).
  Result ExecText(std::string_view sql, const Params& params = {});
  // Runs the statement, after any deferred ones, and commits, all in one
  // round trip; returns the statement's result. Throws on any failure (then
  // nothing was written).
  Result ExecAndCommit(const Query& query, const Params& params);
  // The same for several statements: their results, in order.
  std::vector<Result> ExecAndCommit(const std::vector<Statement>& statements);
  // Commits; throws on failure (then nothing was written).
  void Commit();
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  // Runs the deferred statements and then `then` in one pipeline, BEGIN
  // first if it is still to be sent (`then` must hold no COMMIT then).
  std::vector<Result> RunDeferredWith(std::span<const Statement> then);
  // The transaction's first round trip, BEGIN first in `statements`: sent
  // again on another connection if the borrowed one was found dead.
  std::vector<Result> ExecOpening(std::span<const Statement> statements);

  PooledConnection conn_;
  std::string name_;
  bool open_ = true;
  bool begin_pending_ = false;  // BEGIN goes with the first statements
  std::vector<Statement> deferred_;
};

// Where and how a Pool connects; a value.
struct PoolSettings {
  std::string conninfo;         // URL or key=value, as for Connection::Open
  std::string listen_conninfo;  // a direct connection for LISTEN; empty: conninfo
  ServerPooling pooling = ServerPooling::kNone;
  // What every connection's session starts with (Connection::Open).
  ServerSettings session;
  int size = 16;
  std::chrono::milliseconds acquire_timeout{5000};
};

// A fixed-size pool of connections to one database, opened lazily and
// re-opened after the server restarts: an idle connection is checked before
// it is lent (Connection::LooksAlive, no round trip), and the first one
// found dead, or returned broken, makes the pool check and drop every idle
// one, so after a restart no caller is handed a stale connection.
//
// A failover of the primary (docs/operations.md, "PostgreSQL failover"):
// the old primary's sessions end as a restart's do (57P01 when it shuts
// down for its demotion, or a lost connection), or a write on one finds the
// server read-only (25006, db::ServerReadOnly): that connection is dropped
// with every idle one, which reach the same server however alive they look.
// New connections are opened with the pool's conninfo, whose multi-host
// list and target_session_attrs=read-write make libpq pick the new primary.
// Thread-safe.
class Pool {
 public:
  static constexpr std::chrono::milliseconds kDefaultAcquireTimeout{5000};

  explicit Pool(PoolSettings settings);
  // Every connection starts its session with `session` (Connection::Open).
  Pool(std::string conninfo, int size,
       std::chrono::milliseconds acquire_timeout = kDefaultAcquireTimeout,
       ServerSettings session = {});
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Borrows a connection, waiting up to the acquire timeout (then PoolTimeout).
  // Throws ConnectionError if a new connection cannot be opened.
  PooledConnection Acquire();
  // A transaction on a borrowed connection (BEGIN sent with its first
  // statements, see Transaction). If the borrowed connection turns out to be
  // dead after all (it died between its check and the BEGIN), it is replaced
  // once before giving up.
  Transaction Begin(std::string_view name);

  [[nodiscard]] const std::string& conninfo() const { return settings_.conninfo; }
  // Where the loops and the inbox streams LISTEN (db::Listener): a LISTEN
  // must stay on one server session, which a transaction-mode pooler does
  // not keep.
  [[nodiscard]] const std::string& listen_conninfo() const { return settings_.listen_conninfo; }
  [[nodiscard]] ServerPooling pooling() const { return settings_.pooling; }
  // The server settings every connection starts its session with.
  [[nodiscard]] const ServerSettings& session() const { return settings_.session; }
  // What this pool was made with (listen_conninfo filled in): a second pool
  // for the same work (delivery::Worker's own) is made from it, so it
  // connects the same way and starts the same session settings.
  [[nodiscard]] const PoolSettings& settings() const { return settings_; }
  [[nodiscard]] int size() const { return settings_.size; }
  // Connections borrowed right now (for metrics).
  [[nodiscard]] int InUse() const;

 private:
  friend class PooledConnection;
  void Return(std::optional<Connection> conn);
  // Closes the idle connections the server has closed; returns how many.
  // Called with mutex_ held.
  int DropDeadIdle();

  PoolSettings settings_;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<Connection> idle_;
  int open_ = 0;  // idle + borrowed
};

}  // namespace chopar::db
