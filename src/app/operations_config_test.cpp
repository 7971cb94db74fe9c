// The keys of docs/configuration.md "Operations": roles, metrics_listen,
// the PgBouncer keys and [log].

#include <gtest/gtest.h>

#include "app/config_fixture.hpp"

namespace chopar::app {
namespace {

TEST_F(ConfigTest, OperationsDefaults) {
  const Config c = LoadConfig(std::nullopt, {});
  EXPECT_EQ(c.server.roles, (std::vector<std::string>{"api", "worker", "scheduler", "reports", "relay"}));
  EXPECT_EQ(c.server.metrics_listen, "");
  EXPECT_FALSE(c.server.public_metrics);
  EXPECT_EQ(c.database.listen_url, "");
  EXPECT_TRUE(c.database.prepared_statements);
  EXPECT_EQ(c.log.level, "info");
  EXPECT_EQ(c.log.format, "text");
}

TEST_F(ConfigTest, OperationsValuesThatMakeNoSense) {
  EXPECT_EQ(FileRefusal("[server]\nroles = [\"api\", \"wroker\"]"),
            "config: [server] roles: unknown role \"wroker\" (did you mean worker?); the roles "
            "are api, worker, scheduler, reports, relay");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_SERVER_ROLES", ""}}),
            "config: [server] roles: must name at least one role");
  EXPECT_EQ(FileRefusal("[server]\nroles = \"api\""),
            "config: [server] roles has the wrong type (expected an array of strings)");
  EXPECT_EQ(FileRefusal("[server]\nmetrics_listen = \"9100\""),
            "config: [server] metrics_listen: listen address must be host:port, got \"9100\"");
  EXPECT_EQ(FileRefusal("[log]\nlevel = \"verbose\""),
            "config: [log] level must be trace, debug, info, warn, error, critical or off");
  EXPECT_EQ(EnvRefusal({{"CHOPAR_LOG_FORMAT", "xml"}}),
            "config: [log] format must be text or json");
}

TEST_F(ConfigTest, RolesAreReadFromTheEnvironmentAsAList) {
  const Config c = LoadConfig(std::nullopt, {{"CHOPAR_SERVER_ROLES", "worker, scheduler"}});
  EXPECT_EQ(c.server.roles, (std::vector<std::string>{"worker", "scheduler"}));
}

}  // namespace
}  // namespace chopar::app
