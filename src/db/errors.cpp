#include "db/errors.hpp"

namespace chopar::db {

bool IsTransient(const std::exception& error) {
  return dynamic_cast<const ConnectionError*>(&error) != nullptr ||
         dynamic_cast<const PoolTimeout*>(&error) != nullptr ||
         dynamic_cast<const SerializationFailure*>(&error) != nullptr ||
         dynamic_cast<const QueryCanceled*>(&error) != nullptr ||
         dynamic_cast<const LockNotAvailable*>(&error) != nullptr ||
         dynamic_cast<const InsufficientResources*>(&error) != nullptr;
}

void ThrowForSqlState(const std::string& sqlstate, const std::string& message) {
  if (sqlstate == "23505") throw UniqueViolation(sqlstate, message);
  if (sqlstate == "23514") throw CheckViolation(sqlstate, message);
  if (sqlstate == "23503") throw ForeignKeyViolation(sqlstate, message);
  if (sqlstate == "40001" || sqlstate == "40P01") throw SerializationFailure(sqlstate, message);
  if (sqlstate == "57014") throw QueryCanceled(sqlstate, message);
  if (sqlstate == "55P03") throw LockNotAvailable(sqlstate, message);
  if (sqlstate.starts_with("53")) throw InsufficientResources(sqlstate, message);
  if (sqlstate == "25006") throw ServerReadOnly(sqlstate, message);
  // Class 08 (connection exception), 57P01..57P03 (admin shutdown, crash, cannot connect now).
  if (sqlstate.empty() || sqlstate.starts_with("08") || sqlstate.starts_with("57P")) {
    throw ConnectionError(sqlstate, message);
  }
  throw DbError(sqlstate, message);
}

}  // namespace chopar::db
