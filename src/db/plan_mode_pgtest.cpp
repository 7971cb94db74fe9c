// Each prepared query runs under its own db::Plan (db/query.hpp): the
// session's planner settings are switched before a query that wants others,
// in the same round trip, and a rollback or a failure, which may undo a
// switch made in its transaction, never leaves a query running under
// settings it did not ask for.
#include <gtest/gtest.h>

#include <string>

#include "db/errors.hpp"
#include "db/pool.hpp"
#include "testing/test_database.hpp"

namespace chopar::db {
namespace {

constexpr const char* kSettingsSql =
    "SELECT current_setting('plan_cache_mode') || ' ' || current_setting('enable_seqscan') || "
    "' ' || current_setting('enable_bitmapscan') || ' ' || current_setting('enable_nestloop')";
constexpr Query kGenericSettings{"test.generic_settings", kSettingsSql, Plan::kGeneric};
constexpr Query kAutoSettings{"test.auto_settings", kSettingsSql};
constexpr Query kAnySettings{"test.any_settings", kSettingsSql, Plan::kAny};
constexpr Query kCustomSettings{"test.custom_settings", kSettingsSql, Plan::kCustom};
constexpr Query kGenericFailure{"test.generic_failure", "SELECT 1 / 0", Plan::kGeneric};

constexpr const char* kGeneric = "force_generic_plan off off on";
constexpr const char* kDefaults = "auto on on on";
constexpr const char* kCustom = "force_custom_plan on off off";

class PlanModeTest : public testing::PgTest {
 protected:
  static std::string Settings(Connection& conn, const Query& query) {
    return conn.Exec(query, Params()).String(0, 0);
  }
};

TEST_F(PlanModeTest, EachQueryRunsUnderItsOwnPlanAndAnyKeepsTheSessions) {
  Connection conn = db_->Connect();
  EXPECT_EQ(Settings(conn, kAnySettings), kDefaults);
  EXPECT_EQ(Settings(conn, kGenericSettings), kGeneric);
  EXPECT_EQ(Settings(conn, kAnySettings), kGeneric);
  EXPECT_EQ(Settings(conn, kAutoSettings), kDefaults);
  EXPECT_EQ(Settings(conn, kGenericSettings), kGeneric);
  EXPECT_EQ(Settings(conn, kCustomSettings), kCustom);
  EXPECT_EQ(Settings(conn, kAnySettings), kCustom);
  EXPECT_EQ(Settings(conn, kAutoSettings), kDefaults);
}

TEST_F(PlanModeTest, APipelineSwitchesBetweenItsStatementsAndReturnsOnlyTheirResults) {
  Connection conn = db_->Connect();
  const Statement statements[] = {{kGenericSettings, Params()},
                                  {kAnySettings, Params()},
                                  {kAutoSettings, Params()},
                                  {kGenericSettings, Params()}};
  const auto results = conn.ExecPipeline(statements);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].String(0, 0), kGeneric);
  EXPECT_EQ(results[1].String(0, 0), kGeneric);
  EXPECT_EQ(results[2].String(0, 0), kDefaults);
  EXPECT_EQ(results[3].String(0, 0), kGeneric);
  EXPECT_EQ(Settings(conn, kAnySettings), kGeneric);
}

TEST_F(PlanModeTest, ARollbackThatUndidTheSwitchIsFollowedByANewOne) {
  {
    auto tx = pool_->Begin("test_switch_rolled_back");
    EXPECT_EQ(tx.Exec(kGenericSettings, Params()).String(0, 0), kGeneric);
  }  // rolled back: the server's session is back at its defaults
  auto conn = pool_->Acquire();
  EXPECT_EQ(Settings(*conn, kAnySettings), kDefaults);
  EXPECT_EQ(Settings(*conn, kGenericSettings), kGeneric);
}

TEST_F(PlanModeTest, AFailureInTheSwitchingPipelineIsFollowedByANewSwitch) {
  Connection conn = db_->Connect();
  // The switch and the failing statement are one implicit transaction: the
  // failure undoes the switch.
  EXPECT_THROW(conn.Exec(kGenericFailure, Params()), DbError);
  EXPECT_EQ(Settings(conn, kAnySettings), kDefaults);
  EXPECT_EQ(Settings(conn, kGenericSettings), kGeneric);
}

}  // namespace
}  // namespace chopar::db
