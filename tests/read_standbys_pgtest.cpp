// Black-box test of [database] read_urls against a real hot standby
// (docs/configuration.md "Reads from standbys", docs/api.md
// "Read-your-writes"): a streaming replica of the test server
// (testing::HotStandby) takes the inbox's and the console's reads; a read
// carrying the Chopar-LSN of a write waits for the standby to replay it,
// else reads from the primary; a standby that lags past read_max_lag_ms, or
// is down, is not read from. Which server ran a read is told by the
// standby's pg_stat_activity (the last statement of each session) and by
// the metrics.

#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "blackbox_support.hpp"
#include "db/lsn.hpp"
#include "testing/hot_standby.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;

// The value of the sample `name_and_labels` ("chopar_reads_total{target=\"primary\"}")
// in a /metrics page; 0 when absent.
double MetricValue(const std::string& page, const std::string& name_and_labels) {
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name_and_labels + " ", 0) == 0) {
      return std::stod(line.substr(name_and_labels.size() + 1));
    }
  }
  return 0;
}

class ReadStandbys : public testing::DatabaseBlackBox {
 protected:
  void SetUp() override {
    if (!testing::HotStandby::Available()) GTEST_SKIP() << "no test server to replicate";
    DatabaseBlackBox::SetUp();
    if (IsSkipped()) return;
    standby_ = std::make_unique<testing::HotStandby>();
  }
  void TearDown() override {
    if (serve_) {
      serve_->Signal(SIGTERM);
      EXPECT_EQ(serve_->Wait(30s), 0) << serve_->Output();
    }
    // The standby goes before the database it replicates.
    standby_.reset();
    DatabaseBlackBox::TearDown();
  }

  // `chopar serve` reading from the standby, with `more` settings.
  void Serve(std::map<std::string, std::string> more = {}) {
    port_ = FreeLoopbackPort();
    more.emplace("CHOPAR_DATABASE_READ_URLS", standby_->UrlOf(db_->url()));
    serve_ = Start("serve", port_, DatabaseEnv("standby-key", std::move(more)), "serve.log");
    api_ = std::make_unique<Api>(port_, "standby-key");
    ASSERT_TRUE(WaitUntil([&] { return api_->Healthy(); }, 60s)) << serve_->Output();
    const auto user = api_->Call("PUT", "/v1/users/1", {{"email", "one@example.com"}});
    ASSERT_EQ(user.status / 100, 2) << user.body;
    // Users are written in a transaction: the response names its LSN.
    EXPECT_TRUE(user.headers.contains("chopar-lsn"));
  }

  std::string Metrics() { return api_->Call("GET", "/metrics").body; }
  double Metric(const std::string& name_and_labels) {
    return MetricValue(Metrics(), name_and_labels);
  }

  // Creates a notification for `user_id` titled `title`; the response's Chopar-LSN.
  std::string Notify(int user_id, const std::string& title) {
    const auto created = api_->Call("POST", "/v1/notifications",
                                    {{"user_id", user_id}, {"type", "task.due"}, {"title", title}});
    EXPECT_EQ(created.status, 201) << created.body;
    const auto lsn = created.headers.find("chopar-lsn");
    EXPECT_NE(lsn, created.headers.end()) << "no Chopar-LSN on a write";
    return lsn == created.headers.end() ? "" : lsn->second;
  }

  // The titles of the user's first page, read with `lsn` (none when empty).
  std::vector<std::string> Titles(int user_id, const std::string& lsn = "") {
    std::vector<std::string> headers;
    if (!lsn.empty()) headers.push_back("Chopar-LSN: " + lsn);
    const auto listed = api_->Call("GET", "/v1/users/" + std::to_string(user_id) + "/notifications",
                                   nullptr, headers);
    EXPECT_EQ(listed.status, 200) << listed.body;
    const nlohmann::json page = nlohmann::json::parse(listed.body);
    std::vector<std::string> titles;
    for (const auto& item : page["items"]) titles.push_back(item["title"]);
    return titles;
  }

  // The standby's clock now, and the last statements of the standby's
  // sessions in the test's database that started after `since`, joined.
  std::string StandbyNow() { return standby_->Scalar(db_->url(), "SELECT clock_timestamp()"); }
  std::string StandbyStatementsSince(const std::string& since) {
    return standby_->Scalar(
        db_->url(),
        "SELECT coalesce(string_agg(query, ' ;; '), '') FROM pg_stat_activity WHERE datname = "
        "current_database() AND pid <> pg_backend_pid() AND query_start > '" +
            since + "'");
  }

  std::unique_ptr<testing::HotStandby> standby_;
  std::unique_ptr<testing::ChildProcess> serve_;
  std::unique_ptr<Api> api_;
  int port_ = 0;
};

TEST_F(ReadStandbys, InboxAndConsoleReadsRunOnTheStandbyAndWritesAnswerWithTheirLsn) {
  // However loaded the machine, the standby is not left for lag here.
  ASSERT_NO_FATAL_FAILURE(Serve({{"CHOPAR_DATABASE_READ_MAX_LAG_MS", "600000"}}));
  const std::string lsn = Notify(1, "First");
  EXPECT_TRUE(db::ParseLsn(lsn)) << lsn;
  standby_->CatchUpWith(db_->url());

  const auto token = nlohmann::json::parse(api_->Call("GET", "/v1/users/1/token").body)["token"]
                         .get<std::string>();
  Api subscriber(port_, token);
  const struct {
    Api* api;
    std::string path;
    std::string statement;  // a piece of the query the standby must have run
  } reads[] = {
      {api_.get(), "/v1/users/1/notifications/unread-count", "read_at IS NULL"},
      {api_.get(), "/v1/users/1/notifications?limit=2", "FROM chopar.notifications n"},
      {api_.get(), "/v1/deliveries?user_id=1", "FROM chopar.deliveries d"},
      {&subscriber, "/v1/inbox/unread-count", "read_at IS NULL"},
      {&subscriber, "/v1/inbox/notifications", "FROM chopar.notifications n"},
      {api_.get(), "/v1/users?limit=5", "FROM chopar.users"},
      {api_.get(), "/v1/schedules", "FROM chopar.schedule_rows"},
      {api_.get(), "/v1/sink/messages", "sink_messages"},
      {api_.get(), "/v1/stats/deliveries?minutes=5", "deliveries"},
      {api_.get(), "/v1/stats/overview", "chopar."},
      {api_.get(), "/v1/users/1/push-subscriptions", "push_subscriptions"},
  };
  for (const auto& read : reads) {
    const std::string before = StandbyNow();
    const auto response = read.api->Call("GET", read.path);
    EXPECT_EQ(response.status, 200) << read.path << ": " << response.body;
    const std::string ran = StandbyStatementsSince(before);
    EXPECT_NE(ran.find(read.statement), std::string::npos)
        << read.path << " did not run on the standby: " << ran;
  }
  // Every read above went to the standby, none to the primary.
  const std::string page = Metrics();
  EXPECT_GE(MetricValue(page, R"(chopar_reads_total{target="standby_1"})"), 11) << page;
  EXPECT_EQ(MetricValue(page, R"(chopar_reads_total{target="primary"})"), 0) << page;
  EXPECT_EQ(MetricValue(page, R"(chopar_read_standby_up{standby="1"})"), 1) << page;

  // A malformed LSN is refused, naming the header.
  const auto bad = api_->Call("GET", "/v1/users/1/notifications", nullptr, {"Chopar-LSN: soon"});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("Chopar-LSN"), std::string::npos) << bad.body;
}

TEST_F(ReadStandbys, AReadCarryingTheLsnOfAWriteSeesItWhileTheStandbyHasNotReplayedIt) {
  // No lag fallback in this test: the paused standby stays readable.
  ASSERT_NO_FATAL_FAILURE(Serve({{"CHOPAR_DATABASE_READ_MAX_LAG_MS", "3600000"}}));
  Notify(1, "Before");
  standby_->CatchUpWith(db_->url());
  standby_->PauseReplay();
  const std::string lsn = Notify(1, "After");

  // With the write's LSN: the standby has not replayed it within the bound,
  // so the primary answers, with the new row.
  const double waited_before = Metric(R"(chopar_read_fallbacks_total{reason="lsn_wait"})");
  EXPECT_EQ(Titles(1, lsn), (std::vector<std::string>{"After", "Before"}));
  EXPECT_EQ(Metric(R"(chopar_read_fallbacks_total{reason="lsn_wait"})"), waited_before + 1);
  // Without it: the standby's stale answer.
  EXPECT_EQ(Titles(1), std::vector<std::string>{"Before"});

  // Replayed, the standby answers the read that carries the LSN.
  standby_->ResumeReplay();
  standby_->CatchUpWith(db_->url());
  const double standby_reads = Metric(R"(chopar_reads_total{target="standby_1"})");
  const std::string before = StandbyNow();
  EXPECT_EQ(Titles(1, lsn), (std::vector<std::string>{"After", "Before"}));
  EXPECT_NE(StandbyStatementsSince(before).find("FROM chopar.notifications n"), std::string::npos);
  EXPECT_EQ(Metric(R"(chopar_reads_total{target="standby_1"})"), standby_reads + 1);
  EXPECT_EQ(Metric(R"(chopar_read_fallbacks_total{reason="lsn_wait"})"), waited_before + 1);
}

TEST_F(ReadStandbys, AStandbyLaggingPastTheBoundIsNotReadFromUntilItCatchesUp) {
  ASSERT_NO_FATAL_FAILURE(Serve({{"CHOPAR_DATABASE_READ_MAX_LAG_MS", "200"}}));
  Notify(1, "Before");
  standby_->CatchUpWith(db_->url());
  standby_->PauseReplay();
  Notify(1, "After");
  // The background check sees the standby fall behind the primary's write.
  ASSERT_TRUE(WaitUntil(
      [&] { return Metric(R"(chopar_read_standby_lag_seconds{standby="1"})") > 0.2; }, 30s))
      << Metrics();
  // Reads carry no LSN and still see the new row: the primary answers them.
  const double lagged = Metric(R"(chopar_read_fallbacks_total{reason="lag"})");
  const double primary_reads = Metric(R"(chopar_reads_total{target="primary"})");
  EXPECT_EQ(Titles(1), (std::vector<std::string>{"After", "Before"}));
  EXPECT_EQ(Metric(R"(chopar_read_fallbacks_total{reason="lag"})"), lagged + 1);
  EXPECT_EQ(Metric(R"(chopar_reads_total{target="primary"})"), primary_reads + 1);

  // Caught up, it is read from again. The lag falls to 0 against the
  // primary's sampled WAL positions, which an asynchronous commit may not
  // have reached yet: wait for the standby to replay the write itself too.
  standby_->ResumeReplay();
  standby_->CatchUpWith(db_->url());
  ASSERT_TRUE(WaitUntil(
      [&] { return Metric(R"(chopar_read_standby_lag_seconds{standby="1"})") == 0; }, 30s))
      << Metrics();
  const double standby_reads = Metric(R"(chopar_reads_total{target="standby_1"})");
  EXPECT_EQ(Titles(1), (std::vector<std::string>{"After", "Before"}));
  EXPECT_EQ(Metric(R"(chopar_reads_total{target="standby_1"})"), standby_reads + 1);
}

TEST_F(ReadStandbys, AStandbyThatIsDownSendsEveryReadToThePrimaryWithoutAnError) {
  ASSERT_NO_FATAL_FAILURE(Serve({{"CHOPAR_DATABASE_READ_MAX_LAG_MS", "600000"}}));
  Notify(1, "Kept");
  standby_->CatchUpWith(db_->url());
  EXPECT_EQ(Titles(1), std::vector<std::string>{"Kept"});
  standby_->Stop();
  // At once (before any check has seen it go: the read fails on it and
  // runs again on the primary) and after the checks have.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Titles(1), std::vector<std::string>{"Kept"});
    const auto count = api_->Call("GET", "/v1/users/1/notifications/unread-count");
    EXPECT_EQ(count.status, 200) << count.body;
    EXPECT_EQ(api_->Call("GET", "/v1/stats/overview").status, 200);
  }
  ASSERT_TRUE(WaitUntil([&] { return Metric(R"(chopar_read_standby_up{standby="1"})") == 0; }, 30s))
      << Metrics();
  const double down = Metric(R"(chopar_read_fallbacks_total{reason="down"})");
  EXPECT_EQ(Titles(1), std::vector<std::string>{"Kept"});
  EXPECT_EQ(Metric(R"(chopar_read_fallbacks_total{reason="down"})"), down + 1);
  const std::string page = Metrics();
  EXPECT_GE(MetricValue(page, R"(chopar_reads_total{target="primary"})"), 10) << page;
  EXPECT_EQ(MetricValue(page, R"(chopar_read_standby_lag_seconds{standby="1"})"), -1) << page;
}

}  // namespace
}  // namespace chopar
