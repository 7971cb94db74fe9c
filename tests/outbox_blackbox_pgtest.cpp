// Black-box, the transactional outbox: the built `chopar` installs the outbox
// into an application's database from the command line, relays what the
// application emits there to a signed webhook, and a relay killed with
// SIGKILL in the middle of 5,000 events delivers every one after its restart,
// with repeats bounded by one batch and no notification twice; with
// [events] emit = ["delivery.*"], every delivery that ends produces exactly
// one signed webhook of its end, across a relay killed and restarted; the
// credentials in target URLs reach neither the log nor last_error.

#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "blackbox_support.hpp"
#include "db/errors.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/fake_smtp_server.hpp"
#include "testing/test_database.hpp"
#include "testing/webhook_verifier.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::ChildProcess;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::TestDatabase;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "outbox-key";
constexpr char kSecret[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// `url` connecting as `role` instead of the harness's superuser.
std::string AsRole(const std::string& url, const std::string& role) {
  const auto at = url.find("user=");
  const auto end = url.find('&', at);
  return url.substr(0, at) + "user=" + role + (end == std::string::npos ? "" : url.substr(end));
}

// What a webhook receiver got, checked as a receiver checks it; each
// answer takes `delay`. Thread-safe.
class Receiver {
 public:
  explicit Receiver(std::chrono::milliseconds delay = 0ms)
      : server_([this, delay](const FakeHttpServer::Request& request) {
          std::this_thread::sleep_for(delay);
          std::lock_guard lock(mutex_);
          const std::string problem =
              testing::WebhookSignatureProblem(kSecret, request.headers, request.body);
          if (!problem.empty()) problems_.push_back(problem);
          ids_.push_back(request.headers.count("webhook-id") ? request.headers.at("webhook-id")
                                                             : "");
          bodies_.push_back(json::parse(request.body, nullptr, false));
          FakeHttpServer::Response ok;
          ok.status = 204;
          return ok;
        }) {}
  [[nodiscard]] std::string url() const { return server_.url() + "/hooks"; }
  [[nodiscard]] std::vector<std::string> ids() const {
    std::lock_guard lock(mutex_);
    return ids_;
  }
  [[nodiscard]] std::vector<json> bodies() const {
    std::lock_guard lock(mutex_);
    return bodies_;
  }
  [[nodiscard]] std::vector<std::string> problems() const {
    std::lock_guard lock(mutex_);
    return problems_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> ids_;
  std::vector<json> bodies_;
  std::vector<std::string> problems_;
  FakeHttpServer server_;  // last: its threads use the members above
};

class OutboxBlackBox : public testing::BlackBox {
 protected:
  void SetUp() override {
    if (!TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    BlackBox::SetUp();
    chopar_db_ = std::make_unique<TestDatabase>();
  }
  // Runs `chopar <args…>` with `config` as its configuration file (when
  // given) and the API on `port`; output in `log`.
  std::unique_ptr<ChildProcess> Run(std::vector<std::string> args, const std::string& config,
                                    int port, const std::string& log) {
    std::vector<std::string> argv = {CHOPAR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!config.empty()) {
      const auto path = dir_ / (log + ".toml");
      std::ofstream(path) << config;
      argv.insert(argv.end(), {"--config", path.string()});
    }
    return std::make_unique<ChildProcess>(
        argv,
        std::map<std::string, std::string>{
            {"CHOPAR_DATABASE_URL", chopar_db_->url()},
            {"CHOPAR_SERVER_API_KEY", kApiKey},
            {"CHOPAR_SERVER_LISTEN", "127.0.0.1:" + std::to_string(port)},
            {"CHOPAR_SERVER_DATA_DIR", (dir_ / "var").string()}},
        dir_ / log, dir_);
  }
  std::unique_ptr<TestDatabase> chopar_db_;
};

// Login roles of the test cluster, dropped at the end (after the databases
// they have privileges in).
struct LoginRoles {
  explicit LoginRoles(std::vector<std::string> role_names) : names(std::move(role_names)) {
    for (const std::string& name : names) Admin().ExecScript("CREATE ROLE " + name + " LOGIN");
  }
  ~LoginRoles() {
    for (const std::string& name : names) {
      try {
        Admin().ExecScript("DROP ROLE IF EXISTS " + name);
      } catch (const std::exception&) {
        // The cluster goes away with the run.
      }
    }
  }
  static db::Connection Admin() {
    return db::Connection::Open(std::getenv("CHOPAR_TEST_DATABASE_URL"));
  }
  std::vector<std::string> names;
};

TEST_F(OutboxBlackBox, InstalledIntoAnApplicationsDatabaseWhatItEmitsReachesASignedWebhook) {
  const std::string app_role = "bb_app_" + std::to_string(getpid());
  const std::string relay_role = "bb_relay_" + std::to_string(getpid());
  const LoginRoles roles({app_role, relay_role});
  TestDatabase app_db(TestDatabase::Contents::kEmpty);  // dropped before the roles
  app_db.Connect().ExecScript(
      "CREATE TABLE public.tasks (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, text text);"
      "GRANT INSERT ON public.tasks TO " +
      app_role);
  const std::vector<std::string> install = {"outbox",     "install", "--database-url", app_db.url(),
                                            "--app-role", app_role,  "--relay-role",   relay_role};
  for (int run = 1; run <= 2; ++run) {  // idempotent
    auto installer = Run(install, "", 0, "install-" + std::to_string(run) + ".log");
    ASSERT_EQ(installer->Wait(60s), 0) << installer->Output();
    EXPECT_NE(installer->Output().find("SELECT chopar.emit("), std::string::npos)
        << installer->Output();
  }

  // The application, as its own restricted role: a task and its event in one transaction.
  {
    auto app = db::Connection::Open(AsRole(app_db.url(), app_role));
    app.ExecScript(
        "BEGIN;"
        "INSERT INTO public.tasks (text) VALUES ('Hisobot tayyorlash');"
        "SELECT chopar.emit('task.created', 42, '{\"text\": \"Hisobot tayyorlash\"}');"
        "COMMIT;"
        "BEGIN;"
        "SELECT chopar.emit('task.created', 43, '{\"text\": \"rolled back\"}');"
        "ROLLBACK;");
    EXPECT_THROW(app.ExecScript("SELECT * FROM chopar.outbox"), db::DbError);
  }

  Receiver receiver;
  const int port = FreeLoopbackPort();
  auto serve = Run({"serve"},
                   "[relay]\nsource_url = \"" + AsRole(app_db.url(), relay_role) +
                       "\"\n[[relay.targets]]\nkind = \"webhook\"\nurl = \"" + receiver.url() +
                       "\"\nsecret = \"" + kSecret + "\"\ntypes = [\"task.*\"]\n",
                   port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_TRUE(WaitUntil([&] { return receiver.ids().size() >= 1; }, 30s)) << serve->Output();

  const auto bodies = receiver.bodies();
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(receiver.problems(), std::vector<std::string>{});
  EXPECT_EQ(bodies[0]["type"], "task.created");
  EXPECT_EQ(bodies[0]["user_id"], 42);
  EXPECT_EQ(bodies[0]["payload"], json({{"text", "Hisobot tayyorlash"}}));
  EXPECT_EQ(bodies[0]["id"], receiver.ids()[0]);
  EXPECT_EQ(
      app_db.Scalar("SELECT event_id::text FROM chopar.outbox WHERE dispatched_at IS NOT NULL"),
      receiver.ids()[0]);

  const auto stats = api.Call("GET", "/v1/outbox/stats");
  ASSERT_EQ(stats.status, 200) << stats.body;
  const json s = json::parse(stats.body);
  EXPECT_EQ(s["pending"], 0);
  EXPECT_EQ(s["dispatched"], 1);
  EXPECT_EQ(s["failed_attempts"], 0);
  EXPECT_EQ(s["sources"]["application"]["dispatched"], 1);
  EXPECT_EQ(s["sources"]["chopar"]["dispatched"], 0);
  const auto metrics = api.Call("GET", "/metrics");
  EXPECT_NE(metrics.body.find("chopar_outbox_published_total{target=\"webhook\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("chopar_outbox_pending{source=\"application\"} 0"),
            std::string::npos);

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

TEST_F(OutboxBlackBox, CredentialsInTargetUrlsReachNeitherTheLogNorLastErrorNorTheStats) {
  const std::vector<std::string> secrets = {"n4ts-pw-4d81", "h00k-pw-93c2", "hook-token-5e17"};
  const int port = FreeLoopbackPort();
  // Both targets on ports where nothing listens: every publish fails.
  auto serve = Run({"serve"},
                   "[events]\nemit = [\"notification.created\"]\n"
                   "[[relay.targets]]\nkind = \"nats\"\nurl = \"nats://admin:" +
                       secrets[0] + "@127.0.0.1:" + std::to_string(FreeLoopbackPort()) +
                       "\"\ntimeout_seconds = 1\n"
                       "[[relay.targets]]\nkind = \"webhook\"\nurl = \"http://hooks:" +
                       secrets[1] + "@127.0.0.1:" + std::to_string(FreeLoopbackPort()) +
                       "/in?token=" + secrets[2] + "\"\nsecret = \"" + kSecret +
                       "\"\ntimeout_seconds = 1\n",
                   port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "u1@example.uz"}}).status, 200);
  ASSERT_EQ(api.Call("POST", "/v1/notifications",
                     {{"user_id", 1}, {"type", "task.due"}, {"title", "t"}})
                .status,
            201);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return chopar_db_->Count(
                   "SELECT count(*) FROM chopar.outbox WHERE last_error LIKE '%nats%'") > 0 &&
               serve->Output().find("failed on target nats") != std::string::npos;
      },
      30s))
      << serve->Output();

  const std::string stored =
      chopar_db_->Scalar("SELECT string_agg(last_error, ' | ') FROM chopar.outbox");
  const auto stats = api.Call("GET", "/v1/outbox/stats");
  ASSERT_EQ(stats.status, 200) << stats.body;
  const std::string log = serve->Output();
  // The failures stay readable: which target, and where it was.
  EXPECT_NE(stored.find("nats://***@127.0.0.1:"), std::string::npos) << stored;
  for (const std::string& secret : secrets) {
    EXPECT_EQ(stored.find(secret), std::string::npos) << stored;
    EXPECT_EQ(stats.body.find(secret), std::string::npos) << stats.body;
    EXPECT_EQ(log.find(secret), std::string::npos) << log;
  }
  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

TEST_F(OutboxBlackBox, ARelayKilledInTheMiddleOfFiveThousandEventsDeliversEveryOneAfterRestart) {
  constexpr int kEvents = 5000;
  constexpr int kBatch = 250;
  chopar_db_->Connect().ExecScript(
      "INSERT INTO chopar.users (id) SELECT g FROM generate_series(1, 50) g;"
      "BEGIN;"
      "SELECT chopar.emit('task.due', NULL, jsonb_build_object('user_id', 1 + g % 50, 'title', "
      "'Task ' || g))"
      "  FROM generate_series(1, 5000) g;"
      "COMMIT;");
  Receiver receiver;
  const std::string config =
      // One loop: what a crash can repeat is the batch that loop had claimed.
      "[relay]\nconcurrency = 1\nbatch = " + std::to_string(kBatch) +
      "\n[[relay.targets]]\nkind = \"webhook\"\nurl = \"" + receiver.url() + "\"\nsecret = \"" +
      kSecret + "\"\n[[relay.targets]]\nkind = \"notify\"\ntitle = \"{{payload.title}}\"\n";
  const auto dispatched = [&] {
    return chopar_db_->Count("SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NOT NULL");
  };

  auto relay = Run({"relay"}, config, FreeLoopbackPort(), "relay-1.log");
  ASSERT_TRUE(WaitUntil([&] { return dispatched() >= kEvents / 3; }, 60s)) << relay->Output();
  relay->Signal(SIGKILL);
  relay->Wait(10s);
  const std::int64_t before_restart = dispatched();
  EXPECT_LT(before_restart, kEvents) << "killed too late to test anything";

  auto restarted = Run({"relay"}, config, FreeLoopbackPort(), "relay-2.log");
  ASSERT_TRUE(WaitUntil([&] { return dispatched() == kEvents; }, 120s)) << restarted->Output();
  restarted->Signal(SIGTERM);
  EXPECT_EQ(restarted->Wait(30s), 0) << restarted->Output();

  const auto ids = receiver.ids();
  const std::set<std::string> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kEvents)) << "an event was lost";
  EXPECT_LE(ids.size() - distinct.size(), static_cast<std::size_t>(kBatch))
      << "more repeats than one batch";
  RecordProperty("dispatched_before_the_kill", static_cast<int>(before_restart));
  RecordProperty("webhook_repeats", static_cast<int>(ids.size() - distinct.size()));
  EXPECT_EQ(receiver.problems(), std::vector<std::string>{});
  EXPECT_EQ(
      chopar_db_->Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key LIKE 'event:%'"),
      kEvents);
  EXPECT_EQ(chopar_db_->Count("SELECT count(DISTINCT dedup_key) FROM chopar.notifications"),
            kEvents);
  EXPECT_EQ(chopar_db_->Count("SELECT count(*) FROM chopar.outbox WHERE attempts <> 1"), 0)
      << "no event failed: a repeat after the kill is an attempt that never got recorded";
}

TEST_F(OutboxBlackBox, EachDeliveryThatEndsGivesOneSignedWebhookOfItsEndAcrossARelayRestart) {
  // Email through an SMTP server that refuses gone@…; at most 3 an hour.
  testing::FakeSmtpServer smtp(
      [](testing::FakeSmtpServer::Stage stage, const testing::FakeSmtpServer::Session& session) {
        testing::FakeSmtpServer::Action action;
        if (stage == testing::FakeSmtpServer::Stage::kRcptTo &&
            session.rcpt_to.back().starts_with("gone")) {
          action.reply = "550 5.1.1 No such user here";
        }
        return action;
      });
  constexpr int kBatch = 5;
  const std::string common =
      "[events]\nemit = [\"delivery.*\"]\n[channels.email]\nprovider = \"smtp\"\n"
      "smtp_url = \"" +
      smtp.url() +
      "\"\nfrom = \"chopar@example.uz\"\n"
      "[limits.hourly]\nemail = 3\n";
  const int port = FreeLoopbackPort();
  // The API and the worker; no relay in this process.
  auto serve = Run({"serve"}, common, port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  json batch = json::array();
  for (int user = 1; user <= 12; ++user) {
    const std::string email = (user <= 10 ? "u" : "gone") + std::to_string(user) + "@example.uz";
    ASSERT_EQ(api.Call("PUT", "/v1/users/" + std::to_string(user), {{"email", email}}).status, 200);
    for (int i = 0; i < 5; ++i)
      batch.push_back({{"user_id", user}, {"type", "task.due"}, {"title", "t"}});
  }
  const auto created = api.Call("POST", "/v1/notifications/batch", {{"notifications", batch}});
  ASSERT_EQ(created.status, 200) << created.body;
  ASSERT_TRUE(WaitUntil(
      [&] {
        return chopar_db_->Count(
                   "SELECT count(*) FROM chopar.deliveries WHERE status IN ('queued', "
                   "'sending')") == 0;
      },
      60s))
      << serve->Output();
  // Each user's first 3 are attempted, the other 2 are over the hourly limit:
  // 10 users × 3 sent, 2 users × 3 refused by the server, 12 × 2 skipped.
  EXPECT_EQ(chopar_db_->Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'"), 30);
  EXPECT_EQ(chopar_db_->Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'failed'"), 6);
  EXPECT_EQ(chopar_db_->Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'skipped'"),
            24);
  // One event per delivery, of its end, committed with it.
  EXPECT_EQ(chopar_db_->Count("SELECT count(*) FROM chopar.outbox"), 60);
  EXPECT_EQ(chopar_db_->Count("SELECT count(DISTINCT d.id) FROM chopar.deliveries d "
                              "JOIN chopar.outbox o ON (o.payload->>'id')::bigint = d.id "
                              "  AND o.type = 'delivery.' || d.status"),
            60);

  // A relay (its own process, one loop, small batches) killed in the middle
  // of them, then started again.
  Receiver receiver(20ms);
  const std::string relay_config = common +
                                   "[relay]\nconcurrency = 1\nbatch = " + std::to_string(kBatch) +
                                   "\n[[relay.targets]]\nkind = \"webhook\"\nurl = \"" +
                                   receiver.url() + "\"\nsecret = \"" + kSecret + "\"\n";
  auto relay = Run({"relay"}, relay_config, FreeLoopbackPort(), "relay-1.log");
  ASSERT_TRUE(WaitUntil([&] { return receiver.ids().size() >= 15; }, 60s)) << relay->Output();
  relay->Signal(SIGKILL);
  relay->Wait(10s);
  EXPECT_LT(receiver.ids().size(), 60u) << "killed too late to test anything";
  auto restarted = Run({"relay"}, relay_config, FreeLoopbackPort(), "relay-2.log");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return chopar_db_->Count(
                   "SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL") == 0;
      },
      60s))
      << restarted->Output();
  restarted->Signal(SIGTERM);
  EXPECT_EQ(restarted->Wait(30s), 0) << restarted->Output();

  EXPECT_EQ(receiver.problems(), std::vector<std::string>{});
  // Delivery id → the webhook ids that told of it, and the type they gave.
  std::map<std::int64_t, std::set<std::string>> ids_of;
  std::map<std::int64_t, std::string> type_of;
  const auto bodies = receiver.bodies();
  const auto ids = receiver.ids();
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const std::int64_t delivery = bodies[i]["payload"]["id"];
    ids_of[delivery].insert(ids[i]);
    type_of[delivery] = bodies[i]["type"];
    EXPECT_EQ(bodies[i]["payload"]["status"], bodies[i]["type"].get<std::string>().substr(9));
  }
  ASSERT_EQ(ids_of.size(), 60u);
  const db::Result rows =
      chopar_db_->Connect().ExecText("SELECT id, status FROM chopar.deliveries", {});
  for (int row = 0; row < rows.Rows(); ++row) {
    const std::int64_t delivery = rows.Int(row, 0);
    EXPECT_EQ(ids_of[delivery].size(), 1u) << "delivery " << delivery;
    EXPECT_EQ(type_of[delivery], "delivery." + rows.String(row, 1)) << "delivery " << delivery;
  }
  // At least once: what the kill repeats is that loop's batch, same webhook-id.
  EXPECT_LE(ids.size() - 60, static_cast<std::size_t>(kBatch));
  RecordProperty("webhook_repeats", static_cast<int>(ids.size() - 60));

  serve->Signal(SIGTERM);
  EXPECT_EQ(serve->Wait(30s), 0) << serve->Output();
}

}  // namespace
}  // namespace chopar
