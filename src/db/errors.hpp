#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace chopar::db {

// Any failure reported by PostgreSQL or libpq. `sqlstate` is the five-character
// SQLSTATE code, empty when the connection itself failed.
class DbError : public std::runtime_error {
 public:
  DbError(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  [[nodiscard]] const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// The connection is gone (server restart, network); the unit of work can be retried.
class ConnectionError : public DbError {
 public:
  using DbError::DbError;
};
// 25006 (read_only_sql_transaction) where chopar writes: the server takes
// no writes now — a primary made read-only while it is being demoted, or a
// standby that a failover left this connection on. Of no use to chopar's
// work, the connection is dropped as a lost one is, and with it every idle
// connection of its pool (db::Pool): they reach the same server. The unit of
// work can be retried: a new connection through a multi-host URL with
// target_session_attrs=read-write finds the new primary.
class ServerReadOnly : public ConnectionError {
 public:
  using ConnectionError::ConnectionError;
};
// 23505: a UNIQUE constraint refused the row.
class UniqueViolation : public DbError {
 public:
  using DbError::DbError;
};
// 23514: a CHECK constraint refused the row.
class CheckViolation : public DbError {
 public:
  using DbError::DbError;
};
// 23503: a FOREIGN KEY refused the row.
class ForeignKeyViolation : public DbError {
 public:
  using DbError::DbError;
};
// 40001 / 40P01: the transaction lost a race and may be retried.
class SerializationFailure : public DbError {
 public:
  using DbError::DbError;
};
// 57014: the statement ran longer than the session's statement_timeout (or
// was cancelled).
class QueryCanceled : public DbError {
 public:
  using DbError::DbError;
};
// 55P03: a lock was not granted within the session's lock_timeout.
class LockNotAvailable : public DbError {
 public:
  using DbError::DbError;
};
// Class 53 (disk full, out of memory, too many connections): the server
// cannot do it now; it can once an operator or the load frees the resource.
class InsufficientResources : public DbError {
 public:
  using DbError::DbError;
};
// No pooled connection became free within the wait limit.
class PoolTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether `error` says that retrying the whole unit of work (a new
// transaction, on a connection from the pool) may succeed: a lost or refused
// connection (ConnectionError), no free connection in time (PoolTimeout), a
// lost serialization race or a deadlock (SerializationFailure), a statement
// or lock wait that ran out of time (QueryCanceled, LockNotAvailable: the
// server was busy or another transaction held what it needed). Everything
// else, constraint violations included, would fail the same way again.
bool IsTransient(const std::exception& error);

// Throws the DbError subclass that matches `sqlstate`.
[[noreturn]] void ThrowForSqlState(const std::string& sqlstate, const std::string& message);

}  // namespace chopar::db
