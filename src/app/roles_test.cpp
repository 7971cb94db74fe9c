#include "app/roles.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace chopar::app {
namespace {

std::string Refusal(const std::vector<std::string>& names) {
  try {
    Roles::FromNames(names);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RolesTest, AllIsEveryRoleAndTheDefault) {
  const Roles all = Roles::All();
  for (const RoleName& entry : kRoleNames) EXPECT_TRUE(all.Has(entry.role)) << entry.name;
  EXPECT_EQ(all.Describe(), "api, worker, scheduler, reports, relay");
  EXPECT_EQ(Roles::FromNames(AllRoleNames()).Describe(), all.Describe());
}

TEST(RolesTest, NamesPickRolesInAnyOrderAndRepeatsDoNoHarm) {
  const Roles roles = Roles::FromNames({"scheduler", "worker", "scheduler"});
  EXPECT_FALSE(roles.Has(ProcessRole::kApi));
  EXPECT_TRUE(roles.Has(ProcessRole::kWorker));
  EXPECT_TRUE(roles.Has(ProcessRole::kScheduler));
  EXPECT_EQ(roles.Describe(), "worker, scheduler");
}

TEST(RolesTest, OnlyIsOneRole) {
  const Roles worker = Roles::Only(ProcessRole::kWorker);
  EXPECT_EQ(worker.Describe(), "worker");
  EXPECT_FALSE(worker.Has(ProcessRole::kApi));
}

TEST(RolesTest, UnknownNamesAndEmptyListsAreRefused) {
  EXPECT_EQ(Refusal({"api", "shceduler"}),
            "unknown role \"shceduler\" (did you mean scheduler?); the roles are api, worker, "
            "scheduler, reports, relay");
  EXPECT_EQ(Refusal({"everything"}),
            "unknown role \"everything\"; the roles are api, worker, scheduler, reports, relay");
  EXPECT_EQ(Refusal({}), "must name at least one role");
}

}  // namespace
}  // namespace chopar::app
