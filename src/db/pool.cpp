#include "db/pool.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "db/errors.hpp"
#include "db/lsn.hpp"

namespace chopar::db {
namespace {

// BEGIN and COMMIT as statements of their own, so they can open and close a
// pipeline.
constexpr Query kBegin{"chopar.begin", "BEGIN", Plan::kAny};
constexpr Query kCommit{"chopar.commit", "COMMIT", Plan::kAny};
// Sent after COMMIT, in its round trip, under a capturing ReadYourWritesScope:
// the insert position is at or past the commit's record.
constexpr Query kWriteLsn{
    "chopar.write_lsn", "SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint AS lsn", Plan::kAny};

}  // namespace

PooledConnection::~PooledConnection() {
  if (pool_ != nullptr && conn_) pool_->Return(std::move(conn_));
}

void PooledConnection::Reborrow() {
  // Returned first: with every connection of the pool borrowed, this one's
  // place is what the new one takes.
  pool_->Return(std::exchange(conn_, std::nullopt));
  PooledConnection other = pool_->Acquire();
  conn_ = std::exchange(other.conn_, std::nullopt);
}

Transaction::Transaction(PooledConnection conn, std::string_view name)
    : conn_(std::move(conn)), name_(name) {
  if (conn_->pooling() == ServerPooling::kNone) {
    begin_pending_ = true;
  } else {
    conn_->Begin();
  }
}

Transaction::~Transaction() {
  // BEGIN still to be sent: nothing reached the server.
  if (!open_ || begin_pending_) return;
  try {
    if (!conn_->IsBroken()) conn_->ExecScript("ROLLBACK");
  } catch (const std::exception& e) {
    spdlog::warn("rollback of transaction {} failed: {}", name_, e.what());
  }
}

Result Transaction::Exec(const Query& query, const Params& params) {
  if (deferred_.empty() && !begin_pending_) return conn_->Exec(query, params);
  const Statement statement{query, params};
  return std::move(RunDeferredWith(std::span(&statement, 1)).back());
}

Result Transaction::ExecText(std::string_view sql, const Params& params) {
  if (!deferred_.empty() || begin_pending_) RunDeferredWith({});
  return conn_->ExecText(sql, params);
}

Result Transaction::ExecAndCommit(const Query& query, const Params& params) {
  return std::move(ExecAndCommit(std::vector<Statement>{{query, params}}).front());
}

std::vector<Result> Transaction::ExecAndCommit(const std::vector<Statement>& statements) {
  // Never BEGIN and COMMIT in one first round trip: it could not be sent
  // again on another connection (ExecOpening).
  if (begin_pending_) RunDeferredWith({});
  std::vector<Statement> then = statements;
  then.push_back({kCommit, Params()});
  const bool with_lsn = CapturingWriteLsn();
  if (with_lsn) then.push_back({kWriteLsn, Params()});
  std::vector<Result> results;
  try {
    results = RunDeferredWith(then);
  } catch (const DbError& e) {
    spdlog::warn("commit of transaction {} failed: {}", name_, e.what());
    throw;
  }
  open_ = false;
  if (with_lsn) {
    RecordWriteLsn(static_cast<Lsn>(results.back().Int(0, 0)));
    results.pop_back();
  }
  // The deferred statements' results come first, the COMMIT's last.
  const auto first = results.end() - 1 - static_cast<std::ptrdiff_t>(statements.size());
  return {std::make_move_iterator(first), std::make_move_iterator(results.end() - 1)};
}

std::vector<Result> Transaction::RunDeferredWith(std::span<const Statement> then) {
  deferred_.insert(deferred_.end(), then.begin(), then.end());
  std::vector<Statement> statements = std::exchange(deferred_, {});
  if (!begin_pending_) return conn_->ExecPipeline(statements);
  statements.insert(statements.begin(), Statement{kBegin, Params()});
  begin_pending_ = false;
  std::vector<Result> results = ExecOpening(statements);
  results.erase(results.begin());
  return results;
}

std::vector<Result> Transaction::ExecOpening(std::span<const Statement> statements) {
  try {
    return conn_->ExecPipeline(statements);
  } catch (const ConnectionError&) {
    if (!conn_->IsBroken()) throw;
  }
  // An idle connection that died between its check and this first round
  // trip; nothing of the transaction was committed. A second failure is
  // the server's, not the pool's.
  open_ = false;  // no connection to roll back on if none can be borrowed
  conn_.Reborrow();
  open_ = true;
  return conn_->ExecPipeline(statements);
}

void Transaction::Commit() {
  if (begin_pending_ && deferred_.empty()) {
    open_ = false;  // nothing was run: nothing to commit
    return;
  }
  if (!deferred_.empty() || begin_pending_) RunDeferredWith({});
  open_ = false;
  try {
    if (CapturingWriteLsn()) {
      const Statement commit[] = {{kCommit, Params()}, {kWriteLsn, Params()}};
      RecordWriteLsn(static_cast<Lsn>(conn_->ExecPipeline(commit).back().Int(0, 0)));
    } else {
      conn_->ExecScript("COMMIT");
    }
  } catch (const DbError& e) {
    spdlog::warn("commit of transaction {} failed: {}", name_, e.what());
    throw;
  }
}

Pool::Pool(PoolSettings settings) : settings_(std::move(settings)) {
  if (settings_.listen_conninfo.empty()) settings_.listen_conninfo = settings_.conninfo;
}

Pool::Pool(std::string conninfo, int size, std::chrono::milliseconds acquire_timeout,
           ServerSettings session)
    : Pool(PoolSettings{.conninfo = std::move(conninfo),
                        .listen_conninfo = "",
                        .pooling = ServerPooling::kNone,
                        .session = std::move(session),
                        .size = size,
                        .acquire_timeout = acquire_timeout}) {}

PooledConnection Pool::Acquire() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!available_.wait_for(lock, settings_.acquire_timeout,
                             [&] { return !idle_.empty() || open_ < settings_.size; })) {
      throw PoolTimeout("no database connection became free within " +
                        std::to_string(settings_.acquire_timeout.count()) + " ms");
    }
    if (idle_.empty()) break;
    Connection conn = std::move(idle_.back());
    idle_.pop_back();
    if (conn.LooksAlive()) return PooledConnection(this, std::move(conn));
    // The server closed it: after a restart every idle connection is as
    // dead as this one, so check them all now rather than one per caller.
    --open_;
    const int dropped = 1 + DropDeadIdle();
    spdlog::info("database pool: dropped {} connection(s) the server had closed; reconnecting",
                 dropped);
    available_.notify_all();
  }
  ++open_;
  lock.unlock();
  try {
    return PooledConnection(
        this, Connection::Open(settings_.conninfo, settings_.session, settings_.pooling));
  } catch (...) {
    lock.lock();
    --open_;
    available_.notify_one();
    throw;
  }
}

Transaction Pool::Begin(std::string_view name) {
  for (int attempt = 0;; ++attempt) {
    PooledConnection conn = Acquire();
    try {
      return Transaction(std::move(conn), name);
    } catch (const ConnectionError&) {
      // An idle connection that died between its check and its BEGIN;
      // nothing has run yet. A second failure is the server's, not the pool's.
      if (attempt > 0) throw;
    }
  }
}

int Pool::DropDeadIdle() {
  const auto dead = std::remove_if(idle_.begin(), idle_.end(),
                                   [](Connection& conn) { return !conn.LooksAlive(); });
  const int dropped = static_cast<int>(idle_.end() - dead);
  idle_.erase(dead, idle_.end());
  open_ -= dropped;
  return dropped;
}

int Pool::InUse() const {
  std::lock_guard lock(mutex_);
  return open_ - static_cast<int>(idle_.size());
}

void Pool::Return(std::optional<Connection> conn) {
  std::lock_guard lock(mutex_);
  if (conn && !conn->IsBroken()) {
    idle_.push_back(std::move(*conn));
  } else if (conn && conn->FoundServerReadOnly()) {
    // The server takes no writes (a failover moved the primary): every idle
    // connection reaches the same server, alive or not. New ones find the
    // primary (target_session_attrs=read-write of a multi-host URL).
    --open_;
    const int dropped = static_cast<int>(idle_.size());
    idle_.clear();
    open_ -= dropped;
    spdlog::warn(
        "database pool: the server takes no writes (a failover?); dropped this and {} idle "
        "connection(s); reconnecting",
        dropped);
  } else {
    // A connection lost while borrowed: its idle siblings likely went with it.
    --open_;
    if (const int dropped = DropDeadIdle(); dropped > 0) {
      spdlog::info("database pool: dropped {} idle connection(s) the server had closed", dropped);
    }
  }
  available_.notify_all();
}

}  // namespace chopar::db
