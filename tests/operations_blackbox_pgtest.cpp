// Black-box tests of running chopar like production (docs/operations.md):
// process roles and their metrics, PgBouncer in transaction mode, JSON logs
// with request ids.

#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "blackbox_support.hpp"
#include "core_flows.hpp"
#include "testing/hot_standby.hpp"
#include "testing/pgbouncer.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;

// A GET on 127.0.0.1:`port`, with the API key `key` when one is given.
net::HttpResponse Get(int port, const std::string& path, const std::string& key = "") {
  net::HttpClient client;
  net::HttpRequest request;
  request.method = "GET";
  request.url = "http://127.0.0.1:" + std::to_string(port) + path;
  if (!key.empty()) request.headers.push_back("Authorization: Bearer " + key);
  request.timeout = 5s;
  return client.Perform(request);
}

// The value of a metric line `name` (with its labels, as rendered), or -1.
double Metric(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

class ProcessOperations : public testing::DatabaseBlackBox {
 protected:
  std::map<std::string, std::string> Env(std::map<std::string, std::string> more = {}) const {
    return DatabaseEnv("ops-key", std::move(more));
  }
};

// /metrics on the API port: with the API key only, unless public_metrics; not
// at all when metrics_listen serves it (without a key, as for any process).
TEST_F(ProcessOperations, MetricsOnTheApiPortNeedTheKeyUnlessPublicOrServedElsewhere) {
  const auto serve = [&](std::map<std::string, std::string> more, const std::string& log) {
    const int port = FreeLoopbackPort();
    auto process = Start("serve", port, Env(std::move(more)), log);
    EXPECT_TRUE(WaitUntil([&] { return Get(port, "/healthz").status == 200; }, 60s))
        << process->Output();
    return std::make_pair(port, std::move(process));
  };
  {
    auto [port, process] = serve({}, "default.log");
    EXPECT_EQ(Get(port, "/metrics").status, 401) << "no key";
    EXPECT_EQ(Get(port, "/metrics", "wrong-key").status, 401);
    EXPECT_EQ(Get(port, "/metrics", "ops-key").status, 200);
    EXPECT_EQ(Get(port, "/healthz").status, 200) << "health needs no key";
  }
  {
    auto [port, process] = serve({{"CHOPAR_SERVER_PUBLIC_METRICS", "true"}}, "public.log");
    EXPECT_EQ(Get(port, "/metrics").status, 200);
  }
  {
    const int metrics_port = FreeLoopbackPort();
    auto [port, process] =
        serve({{"CHOPAR_SERVER_METRICS_LISTEN", "127.0.0.1:" + std::to_string(metrics_port)}},
              "metrics-listen.log");
    EXPECT_EQ(Get(port, "/metrics", "ops-key").status, 404);
    const auto scraped = Get(metrics_port, "/metrics");
    EXPECT_EQ(scraped.status, 200);
    EXPECT_NE(scraped.body.find("chopar_http_requests_total{"), std::string::npos) << scraped.body;
  }
}

TEST_F(ProcessOperations, ProcessesWithoutTheApiServeMetricsAndHealthOnMetricsListen) {
  const int api_port = FreeLoopbackPort();
  auto api_process = Start("serve", api_port, Env({{"CHOPAR_SERVER_ROLES", "api"}}), "api.log");
  const int worker_metrics = FreeLoopbackPort();
  const int worker_port = FreeLoopbackPort();
  auto worker =
      Start("serve", worker_port,
            Env({{"CHOPAR_SERVER_ROLES", "worker"},
                 {"CHOPAR_SERVER_METRICS_LISTEN", "127.0.0.1:" + std::to_string(worker_metrics)}}),
            "worker.log");
  const int scheduler_metrics = FreeLoopbackPort();
  auto scheduler = Start(
      "scheduler", FreeLoopbackPort(),
      Env({{"CHOPAR_SERVER_METRICS_LISTEN", "127.0.0.1:" + std::to_string(scheduler_metrics)}}),
      "scheduler.log");
  Api api(api_port, "ops-key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << api_process->Output();
  ASSERT_TRUE(WaitUntil([&] { return Get(worker_metrics, "/healthz").status == 200; }, 60s))
      << worker->Output();
  ASSERT_TRUE(WaitUntil([&] { return Get(scheduler_metrics, "/healthz").status == 200; }, 60s))
      << scheduler->Output();
  EXPECT_NE(api_process->Output().find("running api\n"), std::string::npos)
      << api_process->Output();
  EXPECT_NE(worker->Output().find("running worker\n"), std::string::npos) << worker->Output();

  // The worker serves no API: its listen address stays closed, and its
  // metrics port answers nothing but /metrics and /healthz.
  EXPECT_EQ(Get(worker_port, "/healthz").status, 0);
  EXPECT_EQ(Get(worker_metrics, "/v1/users/1").status, 404);

  // The API process only stores; the worker delivers; each counts its own.
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "a@example.uz"}}).status, 200);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(api.Call("POST", "/v1/notifications",
                       {{"user_id", 1}, {"type", "task.due"}, {"title", "t"}})
                  .status,
              201);
  }
  EXPECT_TRUE(WaitUntil(
      [&] {
        return Metric(Get(worker_metrics, "/metrics").body,
                      "chopar_deliveries_total{channel=\"email\",status=\"sent\"}") == 3;
      },
      30s))
      << Get(worker_metrics, "/metrics").body;
  const std::string api_metrics = api.Call("GET", "/metrics").body;
  EXPECT_EQ(Metric(api_metrics, "chopar_notifications_created_total"), 3) << api_metrics;
  EXPECT_LE(Metric(api_metrics, "chopar_deliveries_total{channel=\"email\",status=\"sent\"}"), 0);
  EXPECT_NE(Get(scheduler_metrics, "/metrics").body.find("chopar_loop_"), std::string::npos);

  for (auto* process : {api_process.get(), worker.get(), scheduler.get()}) {
    process->Signal(SIGTERM);
    EXPECT_EQ(process->Wait(30s), 0) << process->Output();
  }
}

// One chopar process of a multi-process deployment: what it runs, where it
// answers /metrics, and the process itself (null while it is down).
struct Member {
  std::string name;   // "api-1", "worker-2", …: also its log file
  std::string roles;  // CHOPAR_SERVER_ROLES
  int port = 0;       // the API port (api) or metrics_listen (others)
  std::unique_ptr<testing::ChildProcess> process;
};

TEST_F(ProcessOperations, TwoProcessesOfEachRoleLoseAndDoubleNothingWhenOneOfEachIsKilled) {
  std::vector<Member> members;
  for (const std::string role : {"api", "worker", "scheduler"}) {
    for (int i = 1; i <= 2; ++i)
      members.push_back({role + "-" + std::to_string(i), role, 0, nullptr});
  }
  int restarts = 0;
  const auto start = [&](Member& member) {
    member.port = FreeLoopbackPort();
    std::map<std::string, std::string> env = Env({{"CHOPAR_SERVER_ROLES", member.roles},
                                                  {"CHOPAR_DATABASE_POOL_SIZE", "4"},
                                                  {"CHOPAR_DELIVERY_LEASE_SECONDS", "5"},
                                                  {"CHOPAR_LIMITS_HOURLY_EMAIL", "100000"}});
    const bool api = member.roles == "api";
    if (!api) env["CHOPAR_SERVER_METRICS_LISTEN"] = "127.0.0.1:" + std::to_string(member.port);
    member.process = Start("serve", api ? member.port : FreeLoopbackPort(), env,
                           member.name + "." + std::to_string(restarts) + ".log");
  };
  const auto healthy = [&](Member& member) {
    return WaitUntil([&] { return Get(member.port, "/healthz").status == 200; }, 60s);
  };
  for (Member& member : members) start(member);
  for (Member& member : members) ASSERT_TRUE(healthy(member)) << member.process->Output();
  Member& api_1 = members[0];
  Member& api_2 = members[1];

  constexpr int kUsers = 20;
  {
    Api api(api_1.port, "ops-key");
    for (int user = 1; user <= kUsers; ++user) {
      ASSERT_EQ(api.Call("PUT", "/v1/users/" + std::to_string(user),
                         {{"email", "u" + std::to_string(user) + "@example.uz"}})
                    .status,
                200);
    }
  }
  // A mixed load: batches of notifications through either API process (a
  // batch whose process died is sent again to the other one: its dedup keys
  // make that safe) and schedules falling due, while one process of each
  // role is killed (SIGKILL, mid-work) and later started again.
  constexpr int kRounds = 30;
  constexpr int kBatch = 20;
  std::vector<std::string> schedules;
  for (int round = 0; round < kRounds; ++round) {
    if (round == 10) {
      for (Member* member : {&members[0], &members[2], &members[4]}) {
        member->process->Signal(SIGKILL);
        member->process->Wait(10s);
        member->process.reset();
      }
    }
    if (round == 20) {
      ++restarts;
      for (Member* member : {&members[0], &members[2], &members[4]}) start(*member);
    }
    nlohmann::json batch = nlohmann::json::array();
    for (int i = 0; i < kBatch; ++i) {
      batch.push_back({{"user_id", 1 + (round * kBatch + i) % kUsers},
                       {"type", "load.ping"},
                       {"title", "t"},
                       {"dedup_key", "load:" + std::to_string(round) + ":" + std::to_string(i)}});
    }
    bool accepted = false;
    for (int attempt = 0; attempt < 4 && !accepted; ++attempt) {
      Member& target = (round + attempt) % 2 == 0 ? api_1 : api_2;
      if (target.process == nullptr) continue;
      Api api(target.port, "ops-key");
      accepted =
          api.Call("POST", "/v1/notifications/batch", {{"notifications", batch}}).status == 200;
    }
    ASSERT_TRUE(accepted) << "round " << round;
    // Every third round a schedule of the round's user is created and made due.
    if (round % 3 == 0) {
      const std::string key = "load-" + std::to_string(round);
      Member& target = api_2.process != nullptr ? api_2 : api_1;
      Api api(target.port, "ops-key");
      ASSERT_EQ(api.Call("PUT", "/v1/schedules/" + key,
                         {{"user_id", 1 + round % kUsers},
                          {"cron", "5 18 * * *"},
                          {"notification", {{"type", "load.reminder"}, {"title", "r"}}}})
                    .status,
                200);
      db_->Scalar(
          "WITH due AS (UPDATE chopar.schedules SET next_fire_at = now() - interval "
          "'1 second' WHERE key = '" +
          key +
          "' RETURNING 1) "
          "SELECT pg_notify('chopar_schedules', '') FROM due");
      schedules.push_back(key);
    }
  }
  for (Member* member : {&members[0], &members[2], &members[4]}) {
    ASSERT_TRUE(healthy(*member)) << member->process->Output();
  }

  // Nothing lost: every notification of the load and every schedule's firing
  // is stored once and its one delivery sent. Nothing doubled: one sink
  // message per delivery.
  const std::int64_t expected = kRounds * kBatch + static_cast<std::int64_t>(schedules.size());
  EXPECT_TRUE(WaitUntil(
      [&] {
        return db_->Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'") ==
               expected;
      },
      60s))
      << db_->Scalar(
             "SELECT string_agg(status || ':' || count, ', ') FROM (SELECT status, "
             "count(*)::text FROM chopar.deliveries GROUP BY status) s");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key LIKE 'load:%'"),
            kRounds * kBatch);
  EXPECT_EQ(
      db_->Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key LIKE 'schedule:%'"),
      static_cast<std::int64_t>(schedules.size()));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), expected);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.sink_messages"), expected);
  EXPECT_EQ(db_->Count("SELECT count(DISTINCT delivery_id) FROM chopar.sink_messages"), expected);

  // Every process, the restarted ones too, is scraped for its own metrics.
  const std::map<std::string, std::string> own_metric = {
      {"api", "chopar_http_requests_total{"},
      {"worker", "chopar_loop_steps_total{loop=\"delivery\"}"},
      {"scheduler", "chopar_loop_steps_total{loop=\"scheduler\"}"}};
  for (Member& member : members) {
    const auto scraped = Get(member.port, "/metrics", "ops-key");
    EXPECT_EQ(scraped.status, 200) << member.name;
    EXPECT_NE(scraped.body.find(own_metric.at(member.roles)), std::string::npos)
        << member.name << "\n"
        << scraped.body;
  }
  double created = 0, sent = 0;
  for (Member& member : members) {
    const std::string text = Get(member.port, "/metrics", "ops-key").body;
    if (member.roles == "api")
      created += std::max(0.0, Metric(text, "chopar_notifications_created_total"));
    if (member.roles == "worker") {
      sent +=
          std::max(0.0, Metric(text, "chopar_deliveries_total{channel=\"email\",status=\"sent\"}"));
    }
  }
  // The killed processes took their counts with them; the live ones count.
  EXPECT_GT(created, 0);
  EXPECT_GT(sent, 0);
  for (Member& member : members) {
    member.process->Signal(SIGTERM);
    EXPECT_EQ(member.process->Wait(30s), 0) << member.name << "\n" << member.process->Output();
  }
}

TEST_F(ProcessOperations, PgBouncerInTransactionModeRunsTheCoreFlows) {
  if (!testing::PgBouncer::Available()) GTEST_SKIP() << "pgbouncer is not installed";
  testing::PgBouncer bouncer(dir_);
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port,
                     {{"CHOPAR_DATABASE_URL", bouncer.Url(db_->url())},
                      {"CHOPAR_DATABASE_PREPARED_STATEMENTS", "false"},
                      {"CHOPAR_DATABASE_LISTEN_URL", db_->url()},
                      {"CHOPAR_SERVER_API_KEY", "ops-key"}},
                     "serve.log");
  Api api(port, "ops-key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  const std::int64_t before = bouncer.Transactions(testing::DatabaseOf(db_->url()));
  testing::RunCoreFlows(api, port, *db_);
  // Everything but LISTEN went through the bouncer.
  EXPECT_GT(bouncer.Transactions(testing::DatabaseOf(db_->url())), before + 50) << bouncer.Log();
  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
  EXPECT_EQ(serve->Output().find("error"), std::string::npos) << serve->Output();
}

// Started while no server takes writes (here a hot standby: a failover's
// target before its promotion), chopar waits for one, saying so, rather
// than exiting; it serves once the standby is promoted.
TEST_F(ProcessOperations, ServeWaitsForAServerThatTakesWritesAndStartsOnceOneDoes) {
  if (!testing::HotStandby::Available()) GTEST_SKIP() << "needs pg_basebackup";
  // Its base backup holds the test's database, migrated: nothing to wait for.
  testing::HotStandby standby;
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port,
                     Env({{"CHOPAR_DATABASE_URL", standby.UrlOf(db_->url())},
                          {"CHOPAR_DATABASE_STARTUP_WAIT_SECONDS", "300"}}),
                     "serve.log");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return serve->Output().find("no database server takes writes yet") != std::string::npos;
      },
      60s))
      << serve->Output();
  EXPECT_TRUE(serve->Running()) << serve->Output();
  standby.Promote();
  Api api(port, "ops-key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "kutgan@example.uz"}}).status, 200);
  const auto created = api.Call("POST", "/v1/notifications",
                                {{"user_id", 1}, {"type", "task.due"}, {"title", "Kutib turdi"}});
  EXPECT_EQ(created.status, 201) << created.body;
  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

// What waiting cannot cure ends the start at once, whatever the wait; the
// rest ends it when [database] startup_wait_seconds has passed.
TEST_F(ProcessOperations, StartGivesUpAtOnceOnAWrongDatabaseAndAfterTheWaitOnAReadOnlyServer) {
  std::string missing = db_->url();
  const std::string database = testing::DatabaseOf(missing);
  missing.replace(missing.find("/" + database) + 1, database.size(), database + "_missing");
  auto wrong = Start(
      "migrate", FreeLoopbackPort(),
      Env({{"CHOPAR_DATABASE_URL", missing}, {"CHOPAR_DATABASE_STARTUP_WAIT_SECONDS", "3600"}}),
      "missing.log");
  EXPECT_EQ(wrong->Wait(60s), 1) << wrong->Output();
  EXPECT_NE(wrong->Output().find("does not exist"), std::string::npos) << wrong->Output();
  EXPECT_EQ(wrong->Output().find("trying again"), std::string::npos) << wrong->Output();

  if (!testing::HotStandby::Available()) GTEST_SKIP() << "needs pg_basebackup";
  // Its base backup holds the test's database, migrated: nothing to wait for.
  testing::HotStandby standby;
  auto read_only = Start("migrate", FreeLoopbackPort(),
                         Env({{"CHOPAR_DATABASE_URL", standby.UrlOf(db_->url())},
                              {"CHOPAR_DATABASE_STARTUP_WAIT_SECONDS", "2"}}),
                         "read-only.log");
  EXPECT_EQ(read_only->Wait(60s), 1) << read_only->Output();
  EXPECT_NE(read_only->Output().find("trying again"), std::string::npos) << read_only->Output();
  EXPECT_NE(read_only->Output().find("read-only transaction"), std::string::npos)
      << read_only->Output();
}

TEST_F(ProcessOperations, JsonLogsCarryEachRequestsIdAndNoPersonalData) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, Env({{"CHOPAR_LOG_FORMAT", "json"}, {"SPDLOG_LEVEL", "debug"}}),
                     "serve.log");
  Api api(port, "ops-key");
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  const std::string email = "malika.karimova@example.uz";
  const std::string phone = "+998901234567";
  const std::string body = "Sizning parolingiz 7741";
  ASSERT_EQ(api.Call("PUT", "/v1/users/7", {{"email", email}, {"phone", phone}}).status, 200);
  // A request with its own id, one without, and one refused before routing.
  net::HttpClient client;
  net::HttpRequest own;
  own.method = "POST";
  own.url = "http://127.0.0.1:" + std::to_string(port) + "/v1/notifications";
  own.headers = {"Authorization: Bearer ops-key", "Content-Type: application/json",
                 "X-Request-Id: client-req-1"};
  own.body = nlohmann::json{{"user_id", 7}, {"type", "security.code"},      {"title", "Kod"},
                            {"body", body}, {"channels", {"email", "sms"}}, {"critical", true}}
                 .dump();
  const auto answered = client.Perform(own);
  ASSERT_EQ(answered.status, 201) << answered.body;
  EXPECT_EQ(answered.Header("x-request-id").value_or(""), "client-req-1");
  const auto missing = api.Call("GET", "/v1/notifications/999999");
  EXPECT_EQ(missing.status, 404);
  const std::string generated = missing.Header("x-request-id").value_or("");
  EXPECT_TRUE(std::regex_match(generated, std::regex("[0-9a-f]{32}"))) << generated;
  net::HttpRequest huge = own;
  huge.headers = {"Authorization: Bearer ops-key", "Content-Type: application/json"};
  huge.body = std::string(2 << 20, 'x');
  const auto refused = client.Perform(huge);
  EXPECT_EQ(refused.status, 413);
  EXPECT_EQ(refused.Header("x-request-id").value_or("").size(), 32u);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db_->Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'") == 2;
      },
      30s));
  serve->Signal(SIGTERM);
  ASSERT_EQ(serve->Wait(30s), 0) << serve->Output();

  // Every line chopar logged is one JSON object; the request lines name
  // their request; nothing at info or above holds the user's data.
  std::istringstream output(serve->Output());
  int json_lines = 0;
  bool own_id_logged = false, generated_id_logged = false;
  for (std::string line; std::getline(output, line);) {
    if (line.empty() || line[0] != '{') continue;  // the start-up banner
    const auto entry = nlohmann::json::parse(line);
    ++json_lines;
    ASSERT_TRUE(entry.contains("time") && entry.contains("level") && entry.contains("message"))
        << line;
    own_id_logged |= entry.value("request_id", "") == "client-req-1";
    generated_id_logged |= entry.value("request_id", "") == generated;
    if (entry["level"] != "debug" && entry["level"] != "trace") {
      for (const std::string& personal : {email, phone, body}) {
        EXPECT_EQ(line.find(personal), std::string::npos) << line;
      }
    }
  }
  EXPECT_GT(json_lines, 5);
  EXPECT_TRUE(own_id_logged) << serve->Output();
  EXPECT_TRUE(generated_id_logged) << serve->Output();
}

}  // namespace
}  // namespace chopar
