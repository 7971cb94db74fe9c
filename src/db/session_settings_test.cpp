#include "db/session_settings.hpp"

#include <gtest/gtest.h>

namespace chopar::db {
namespace {

using std::chrono::seconds;

TEST(WithSessionSettingsTest, WritesTheTimeoutsIntoAUrl) {
  const std::string conninfo = WithSessionSettings(
      "postgresql://chopar@db.example:5433/notify?sslmode=require", {seconds(3), seconds(20)});
  EXPECT_EQ(ConninfoValue(conninfo, "host"), "db.example");
  EXPECT_EQ(ConninfoValue(conninfo, "port"), "5433");
  EXPECT_EQ(ConninfoValue(conninfo, "user"), "chopar");
  EXPECT_EQ(ConninfoValue(conninfo, "dbname"), "notify");
  EXPECT_EQ(ConninfoValue(conninfo, "sslmode"), "require");
  EXPECT_EQ(ConninfoValue(conninfo, "connect_timeout"), "3");
  EXPECT_EQ(ConninfoValue(conninfo, "options"), "-c statement_timeout=20000");
}

TEST(WithSessionSettingsTest, KeepsTheOptionsAlreadyThereAndOverridesTheTimeouts) {
  const std::string conninfo = WithSessionSettings(
      "host=/tmp/pg dbname='my db' connect_timeout=30 options='-c work_mem=64MB'",
      {seconds(5), seconds(0)});
  EXPECT_EQ(ConninfoValue(conninfo, "host"), "/tmp/pg");
  EXPECT_EQ(ConninfoValue(conninfo, "dbname"), "my db");
  EXPECT_EQ(ConninfoValue(conninfo, "connect_timeout"), "5");
  EXPECT_EQ(ConninfoValue(conninfo, "options"), "-c work_mem=64MB -c statement_timeout=0");
}

TEST(WithSessionSettingsTest, QuotesValuesWithQuotesAndBackslashes) {
  const std::string conninfo =
      WithSessionSettings("host=localhost password='it\\'s a \\\\ secret'", {});
  EXPECT_EQ(ConninfoValue(conninfo, "password"), "it's a \\ secret");
}

TEST(WithSessionSettingsTest, ABareNameIsADatabaseName) {
  EXPECT_EQ(ConninfoValue(WithSessionSettings("chopar", {}), "dbname"), "chopar");
}

TEST(WithSessionSettingsTest, RefusesWhatLibpqCannotParse) {
  EXPECT_THROW(WithSessionSettings("host=x port", {}), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::db
