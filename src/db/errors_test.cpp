#include "db/errors.hpp"

#include <gtest/gtest.h>

#include <string>

namespace chopar::db {
namespace {

// Whether the error ThrowForSqlState raises for `sqlstate` is transient.
bool TransientForSqlState(const std::string& sqlstate) {
  try {
    ThrowForSqlState(sqlstate, "message");
  } catch (const std::exception& e) {
    return IsTransient(e);
  }
  ADD_FAILURE() << "nothing thrown for " << sqlstate;
  return false;
}

TEST(IsTransientTest, LostConnectionsAndLostRacesAreRetried) {
  EXPECT_TRUE(TransientForSqlState(""));       // libpq: the connection failed
  EXPECT_TRUE(TransientForSqlState("08006"));  // connection failure
  EXPECT_TRUE(TransientForSqlState("57P01"));  // admin shutdown
  EXPECT_TRUE(TransientForSqlState("57P02"));  // crash shutdown
  EXPECT_TRUE(TransientForSqlState("57P03"));  // cannot connect now
  EXPECT_TRUE(TransientForSqlState("25006"));  // read-only: the primary moved (failover)
  EXPECT_TRUE(TransientForSqlState("40001"));  // serialization failure
  EXPECT_TRUE(TransientForSqlState("40P01"));  // deadlock detected
  EXPECT_TRUE(TransientForSqlState("57014"));  // statement timeout
  EXPECT_TRUE(TransientForSqlState("55P03"));  // lock timeout
  EXPECT_TRUE(TransientForSqlState("53100"));  // disk full
  EXPECT_TRUE(TransientForSqlState("53300"));  // too many connections
  EXPECT_TRUE(IsTransient(PoolTimeout("no database connection became free")));
}

TEST(IsTransientTest, ErrorsThatWouldRepeatAreNot) {
  EXPECT_FALSE(TransientForSqlState("23505"));  // unique violation
  EXPECT_FALSE(TransientForSqlState("23514"));  // check violation
  EXPECT_FALSE(TransientForSqlState("23503"));  // foreign key violation
  EXPECT_FALSE(TransientForSqlState("42P01"));  // undefined table
  EXPECT_FALSE(TransientForSqlState("22P02"));  // invalid text representation
  EXPECT_FALSE(IsTransient(std::runtime_error("channel error")));
  EXPECT_FALSE(IsTransient(std::out_of_range("no path parameter")));
}

}  // namespace
}  // namespace chopar::db
