// Black-box test of [database] read_url (docs/configuration.md): the inbox's
// read-only queries go to the second pool, everything else to the primary.
// The "replica" is the same database reached as a role of its own that may
// only SELECT, so pg_stat_activity shows which statements ran on it (its
// sessions' last statements) and any write sent there would fail.

#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "blackbox_support.hpp"
#include "core_flows.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;

class ReadUrl : public testing::DatabaseBlackBox {
 protected:
  void SetUp() override {
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    // Roles belong to the whole server: the name is the database's own.
    reader_ = "reader_" + db_->Scalar("SELECT current_database()");
    db_->Scalar("CREATE ROLE " + reader_ + " LOGIN");
    db_->Scalar("GRANT USAGE ON SCHEMA chopar TO " + reader_);
    db_->Scalar("GRANT SELECT ON ALL TABLES IN SCHEMA chopar TO " + reader_);
  }
  void TearDown() override {
    if (db_) {
      db_->Scalar("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" +
                  reader_ + "'");
      db_->Scalar("DROP OWNED BY " + reader_);
      WaitUntil(
          [&] {
            return db_->Count("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + reader_ +
                              "'") == 0;
          },
          10s);
      db_->Scalar("DROP ROLE " + reader_);
    }
    DatabaseBlackBox::TearDown();
  }

  // The last statement of every read pool session that ran one after
  // `since` (the database's clock_timestamp()), joined.
  std::string ReplicaStatementsSince(const std::string& since) const {
    return db_->Scalar(
        "SELECT coalesce(string_agg(query, ' ;; '), '') FROM pg_stat_activity WHERE usename = '" +
        reader_ + "' AND query_start > '" + since + "'");
  }

  std::string reader_;
};

TEST_F(ReadUrl, InboxReadsGoToTheReadPoolAndEverythingElseToThePrimary) {
  const int port = FreeLoopbackPort();
  // The same database, as a role that can only read.
  const std::string read_url = db_->url() + "&user=" + reader_;
  auto serve =
      Start("serve", port, DatabaseEnv("read-key", {{"CHOPAR_DATABASE_READ_URL", read_url}}),
            "serve.log");
  Api api(port, "read-key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  // Every flow works: the writes (a role that may only SELECT would refuse
  // them) and the SSE stream went to the primary.
  const std::string start = db_->Scalar("SELECT clock_timestamp()");
  testing::RunCoreFlows(api, port, *db_);
  EXPECT_NE(ReplicaStatementsSince(start), "") << "no statement on the read pool";

  // Each inbox read, alone, runs on the read pool: afterwards it is the
  // last statement of one of its sessions.
  const auto token =
      nlohmann::json::parse(api.Call("GET", "/v1/users/1/token").body)["token"].get<std::string>();
  Api subscriber(port, token);  // the inbox endpoints take the subscriber token
  const struct {
    Api* api;
    std::string path;
    std::string statement;  // a piece of the query the read pool must have run
  } reads[] = {
      {&api, "/v1/users/1/notifications/unread-count", "read_at IS NULL"},
      {&api, "/v1/users/1/notifications?limit=2", "FROM chopar.notifications n"},
      {&api, "/v1/deliveries?user_id=1", "FROM chopar.deliveries d"},
      {&subscriber, "/v1/inbox/unread-count", "read_at IS NULL"},
      {&subscriber, "/v1/inbox/notifications", "FROM chopar.notifications n"},
  };
  for (const auto& read : reads) {
    const std::string before = db_->Scalar("SELECT clock_timestamp()");
    const auto response = read.api->Call("GET", read.path);
    EXPECT_EQ(response.status, 200) << read.path << ": " << response.body;
    const std::string ran = ReplicaStatementsSince(before);
    EXPECT_NE(ran.find(read.statement), std::string::npos)
        << read.path << " did not run on the read pool: " << ran;
  }

  // A notification is created on the primary and listed from the replica.
  const auto created = api.Call("POST", "/v1/notifications",
                                {{"user_id", 2}, {"type", "task.due"}, {"title", "Replica"}});
  ASSERT_EQ(created.status, 201) << created.body;
  const auto listed = nlohmann::json::parse(api.Call("GET", "/v1/users/2/notifications").body);
  EXPECT_EQ(listed["items"][0]["title"], "Replica") << listed;

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

}  // namespace
}  // namespace chopar
