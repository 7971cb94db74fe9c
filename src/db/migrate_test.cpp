#include "db/migrate.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace chopar::db {
namespace {

using ::testing::ElementsAre;

TEST(SplitSqlStatementsTest, SplitsAtTheSemicolonsThatEndStatements) {
  EXPECT_THAT(SplitSqlStatements("CREATE TABLE a (x int);\n  DROP INDEX b ;SELECT 1"),
              ElementsAre("CREATE TABLE a (x int)", "DROP INDEX b", "SELECT 1"));
}

TEST(SplitSqlStatementsTest, KeepsSemicolonsInsideQuotesIdentifiersAndBodies) {
  const std::string script =
      "INSERT INTO t VALUES ('a;b', 'it''s; fine', E'\\';');\n"
      "CREATE TABLE \"odd;name\" (x int);\n"
      "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;\n"
      "CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN $1; END $body$;\n"
      "SELECT $1::int";
  EXPECT_THAT(SplitSqlStatements(script),
              ElementsAre("INSERT INTO t VALUES ('a;b', 'it''s; fine', E'\\';')",
                          "CREATE TABLE \"odd;name\" (x int)",
                          "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$",
                          "CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN "
                          "$1; END $body$",
                          "SELECT $1::int"));
}

TEST(SplitSqlStatementsTest, CommentsNeitherSplitNorCountAsStatements) {
  const std::string script =
      "-- migrate: no transaction\n"
      "-- a comment; with a semicolon\n"
      "DROP INDEX CONCURRENTLY IF EXISTS i; /* a block; /* nested; */ still comment; */\n"
      "CREATE INDEX CONCURRENTLY i ON t (x); -- trailing; comment\n"
      "-- the end;\n";
  const auto statements = SplitSqlStatements(script);
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_TRUE(statements[0].ends_with("DROP INDEX CONCURRENTLY IF EXISTS i")) << statements[0];
  EXPECT_TRUE(statements[1].ends_with("CREATE INDEX CONCURRENTLY i ON t (x)")) << statements[1];
}

}  // namespace
}  // namespace chopar::db
