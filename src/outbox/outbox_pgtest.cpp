// The source document's four canon tests of the transactional outbox, on
// real PostgreSQL, and the write side around them: emit, the inbox,
// install and the roles.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <set>
#include <thread>

#include "db/errors.hpp"
#include "outbox/emit.hpp"
#include "outbox/install.hpp"
#include "outbox/outbox_stats.hpp"
#include "outbox/relay.hpp"
#include "outbox/test_support.hpp"

namespace chopar::outbox {
namespace {

using testing::Drain;
using testing::EmitMany;
using testing::RecordingTarget;
using testing::TestRelaySettings;

// A role of the test cluster for one test, dropped afterwards (with what it
// was granted in `db`).
class TestRole {
 public:
  TestRole(const chopar::testing::TestDatabase& db, const std::string& prefix,
           const std::string& options = "")
      : db_(db) {
    static std::atomic<int> counter{0};
    name_ = prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    Admin().ExecScript("CREATE ROLE " + name_ + " " + options);
  }
  ~TestRole() {
    try {
      db_.Connect().ExecScript("DROP OWNED BY " + name_);
      Admin().ExecScript("DROP ROLE IF EXISTS " + name_);
    } catch (const std::exception&) {
      // The cluster goes away with the run.
    }
  }
  TestRole(const TestRole&) = delete;
  TestRole& operator=(const TestRole&) = delete;
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  static db::Connection Admin() {
    return db::Connection::Open(std::getenv("CHOPAR_TEST_DATABASE_URL"));
  }
  const chopar::testing::TestDatabase& db_;
  std::string name_;
};

// The SQLSTATE `sql` fails with as `role` ("" when it succeeds).
std::string SqlStateAs(db::Connection& conn, const std::string& role, const std::string& sql) {
  conn.ExecScript("BEGIN; SET LOCAL ROLE " + role);
  std::string state;
  try {
    conn.ExecScript(sql);
  } catch (const db::DbError& e) {
    state = e.sqlstate();
  }
  conn.ExecScript("ROLLBACK");
  return state;
}

constexpr const char* kPermissionDenied = "42501";

class OutboxCanonTest : public chopar::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    db_->Connect().ExecScript(
        "CREATE TABLE public.tasks (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
        "owner_id bigint NOT NULL, text text NOT NULL)");
  }
  Relay MakeRelay(std::vector<Route> routes, RelaySettings settings = TestRelaySettings(),
                  core::Random& random = core::ThreadLocalRandom::Instance()) {
    return Relay(*pool_, "chopar", std::move(routes), settings, clock_, metrics_, random);
  }
  core::SystemClock clock_;
  core::MetricsRegistry metrics_;
};

// Canon 1: the task and its event are one transaction.
TEST_F(OutboxCanonTest, RollbackLeavesNeitherRowCommitKeepsBoth) {
  {
    auto tx = pool_->Begin("create_task");
    tx.ExecText("INSERT INTO public.tasks (owner_id, text) VALUES (1, 'Hisobot tayyorlash')");
    Emit(tx, "task.created", 1, {{"text", "Hisobot tayyorlash"}});
    // Rolled back: an error in a later step.
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM public.tasks"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox"), 0);

  auto tx = pool_->Begin("create_task");
  tx.ExecText("INSERT INTO public.tasks (owner_id, text) VALUES (1, 'Hisobot tayyorlash')");
  const std::string id = Emit(tx, "task.created", 1, {{"text", "Hisobot tayyorlash"}});
  tx.Commit();
  EXPECT_EQ(db_->Count("SELECT count(*) FROM public.tasks"), 1);
  EXPECT_EQ(
      db_->Scalar("SELECT type || '|' || payload::text || '|' || (dispatched_at IS NULL) || '|' || "
                  "attempts || '|' || event_id FROM chopar.outbox"),
      "task.created|{\"text\": \"Hisobot tayyorlash\"}|true|0|" + id);
}

// Canon 2 (and the document's exercise 2): event 3 fails the first time; the
// others go now, it goes next time with attempts 2.
TEST_F(OutboxCanonTest, FailingEventStaysCountedAndGoesNextTimeWhileTheRestOfTheBatchGoesNow) {
  const auto ids = EmitMany(*pool_, 5);
  RecordingTarget target([&](const Event& e) {
    return e.event_id == ids[2] ? PublishOutcome::Failed("queue is down") : PublishOutcome::Ok();
  });
  testing::TopRandom top;  // the backoff of attempt 1 is then exactly its ceiling, 1 s
  Relay relay = MakeRelay({{"queue", TypePatterns(), &target}}, TestRelaySettings(), top);

  const RelayRunStats first = relay.RunOnce();
  EXPECT_EQ(first.claimed, 5);
  EXPECT_EQ(first.dispatched, 4);
  EXPECT_EQ(first.failed, 1);
  EXPECT_EQ(
      db_->Scalar("SELECT attempts || '|' || last_error || '|' || (dispatched_at IS NULL) FROM "
                  "chopar.outbox WHERE event_id = '" +
                  ids[2] + "'"),
      "1|queue: queue is down|true");
  const double backoff =
      std::stod(db_->Scalar("SELECT extract(epoch FROM next_attempt_at - now()) FROM "
                            "chopar.outbox WHERE event_id = '" +
                            ids[2] + "'"));
  EXPECT_GT(backoff, 0.5);
  EXPECT_LE(backoff, 1.0);
  EXPECT_EQ(relay.RunOnce().claimed, 0) << "backed off, not due yet";

  target.SetAnswer({});                                             // the queue is back
  db_->Scalar("UPDATE chopar.outbox SET next_attempt_at = now()");  // the backoff has passed
  const RelayRunStats second = relay.RunOnce();
  EXPECT_EQ(second.dispatched, 1);
  EXPECT_EQ(relay.RunOnce().claimed, 0);

  EXPECT_EQ(target.published(), (std::vector<std::string>{ids[0], ids[1], ids[3], ids[4], ids[2]}));
  EXPECT_EQ(db_->Scalar("SELECT attempts FROM chopar.outbox WHERE event_id = '" + ids[2] + "'"),
            "2");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL"), 0);
}

// Canon 3, at ten times the document's size: SKIP LOCKED shares the events.
TEST_F(OutboxCanonTest, TwoRelaysInParallelPublishEachOfTwoThousandEventsExactlyOnce) {
  EmitMany(*pool_, 2000);
  // A broker round trip per batch, so both relays are mid-batch at once.
  RecordingTarget target({}, std::chrono::milliseconds(5));
  db::Pool second_pool(db_->url(), 2);
  Relay a = MakeRelay({{"queue", TypePatterns(), &target}});
  Relay b(second_pool, "chopar", {{"queue", TypePatterns(), &target}}, TestRelaySettings(), clock_,
          metrics_);

  auto run_a = std::async(std::launch::async, [&] { return Drain(a); });
  auto run_b = std::async(std::launch::async, [&] { return Drain(b); });
  const int by_a = run_a.get();
  const int by_b = run_b.get();

  EXPECT_EQ(by_a + by_b, 2000);
  EXPECT_GT(by_a, 0);
  EXPECT_GT(by_b, 0);
  const auto published = target.published();
  EXPECT_EQ(published.size(), 2000u);
  EXPECT_EQ(std::set<std::string>(published.begin(), published.end()).size(), 2000u)
      << "an event went twice";
  EXPECT_EQ(
      db_->Count("SELECT count(*) FROM chopar.outbox WHERE dispatched_at IS NULL OR attempts <> 1"),
      0);
}

// Canon 4: cleanup deletes only old dispatched events; the application's
// role writes events but cannot read, mark or delete them.
TEST_F(OutboxCanonTest,
       RetentionDeletesOnlyOldDispatchedEventsAndTheAppRoleCannotReadUpdateOrDelete) {
  EmitMany(*pool_, 25);
  db_->Connect().ExecScript(
      // Old and dispatched: 1-10. Old but dispatched recently: 11-15. Old
      // and still pending: 21-25.
      "UPDATE chopar.outbox SET created_at = now() - interval '8 days', "
      "  dispatched_at = now() - interval '8 days' + interval '1 second' WHERE id <= 10;"
      "UPDATE chopar.outbox SET created_at = now() - interval '9 days', "
      "  dispatched_at = now() - interval '6 days' WHERE id BETWEEN 11 AND 15;"
      "UPDATE chopar.outbox SET created_at = now() - interval '30 days' WHERE id > 20");
  RelaySettings settings = TestRelaySettings();
  settings.retention_batch = 3;  // several statements
  Relay relay = MakeRelay({}, settings);
  EXPECT_EQ(relay.DeleteExpired(), 10);
  EXPECT_EQ(db_->Scalar("SELECT string_agg(id::text, ',' ORDER BY id) FROM chopar.outbox"),
            "11,12,13,14,15,16,17,18,19,20,21,22,23,24,25");
  EXPECT_EQ(relay.DeleteExpired(), 0);

  TestRole app(*db_, "chopar_app", "NOLOGIN");
  auto conn = db_->Connect();
  conn.ExecScript("GRANT USAGE ON SCHEMA chopar TO " + app.name() + ";" +
                  "GRANT INSERT ON chopar.outbox TO " + app.name() + ";" +
                  "GRANT EXECUTE ON FUNCTION chopar.emit(text, bigint, jsonb) TO " + app.name());
  EXPECT_EQ(SqlStateAs(
                conn, app.name(),
                "INSERT INTO chopar.outbox (type, user_id, payload) VALUES ('task.done', 1, '{}')"),
            "");
  EXPECT_EQ(SqlStateAs(conn, app.name(), "SELECT chopar.emit('task.done', 1, '{}')"), "");
  EXPECT_EQ(SqlStateAs(conn, app.name(), "SELECT count(*) FROM chopar.outbox"), kPermissionDenied);
  EXPECT_EQ(SqlStateAs(conn, app.name(), "UPDATE chopar.outbox SET dispatched_at = now()"),
            kPermissionDenied);
  EXPECT_EQ(SqlStateAs(conn, app.name(), "DELETE FROM chopar.outbox"), kPermissionDenied);
}

class OutboxWriteTest : public chopar::testing::PgTest {};

TEST_F(OutboxWriteTest, EmitOnAnApplicationsConnectionNeedsAnOpenTransaction) {
  auto conn = db_->Connect();
  EXPECT_THROW(Emit(conn.raw(), "task.created", 1, {}), std::logic_error);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox"), 0);

  conn.ExecScript("BEGIN");
  const std::string id = Emit(conn.raw(), "task.created", std::nullopt, {{"a", 1}});
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.outbox"), 0) << "visible before COMMIT";
  conn.ExecScript("COMMIT");
  EXPECT_EQ(
      db_->Scalar("SELECT event_id || '|' || coalesce(user_id::text, 'null') FROM chopar.outbox"),
      id + "|null");

  conn.ExecScript("BEGIN");
  EXPECT_THROW(Emit(conn.raw(), "not a type", 1, {}), db::CheckViolation);
  conn.ExecScript("ROLLBACK");
}

// The document's exercise 3: a payment delivered three times, the first
// delivery dying in the middle of the effect.
TEST_F(OutboxWriteTest, ConsumeOnceTurnsThreeDeliveriesWithACrashIntoOneEffect) {
  db_->Connect().ExecScript(
      "CREATE TABLE public.balance (amount bigint NOT NULL); INSERT INTO public.balance VALUES "
      "(0)");
  const std::string payment = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
  const auto receive = [&](bool crash) {
    auto tx = pool_->Begin("receive_payment");
    if (!ConsumeOnce(tx, payment)) return;  // a repeat
    tx.ExecText("UPDATE public.balance SET amount = amount + 50000");
    if (crash) throw std::runtime_error("the process died");
    tx.Commit();
  };
  EXPECT_THROW(receive(true), std::runtime_error);
  EXPECT_EQ(db_->Scalar("SELECT amount FROM public.balance"), "0");
  receive(false);
  receive(false);
  EXPECT_EQ(db_->Scalar("SELECT amount FROM public.balance"), "50000");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.inbox"), 1);

  auto conn = db_->Connect();
  EXPECT_THROW(ConsumeOnce(conn.raw(), payment), std::logic_error);
  conn.ExecScript("BEGIN");
  EXPECT_FALSE(ConsumeOnce(conn.raw(), payment));
  EXPECT_TRUE(ConsumeOnce(conn.raw(), "9b2e4a1c-0000-4000-8000-000000000001"));
  conn.ExecScript("COMMIT");
}

TEST_F(OutboxWriteTest, StatsCountPendingDispatchedAndFailedAttempts) {
  EmitMany(*pool_, 6);
  db_->Connect().ExecScript(
      "UPDATE chopar.outbox SET dispatched_at = now(), attempts = 3 WHERE id <= 2;"  // 2 failures
                                                                                     // each
      "UPDATE chopar.outbox SET attempts = 4, created_at = now() - interval '90 seconds' WHERE id "
      "= 3");
  const OutboxStats stats = ReadOutboxStats(*pool_);
  EXPECT_EQ(stats.pending, 4);
  EXPECT_EQ(stats.dispatched, 2);
  EXPECT_EQ(stats.failed_attempts, 2 + 2 + 4);
  EXPECT_GE(stats.oldest_pending_age_seconds, 90);
  EXPECT_LT(stats.oldest_pending_age_seconds, 120);
}

// An application's own database, before and after `chopar outbox install`.
class OutboxInstallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!chopar::testing::TestDatabase::Available())
      GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    db_ = std::make_unique<chopar::testing::TestDatabase>(
        chopar::testing::TestDatabase::Contents::kEmpty);
  }
  std::unique_ptr<chopar::testing::TestDatabase> db_;
};

TEST_F(OutboxInstallTest, InstallsIdempotentlyAndGrantsEachRoleOnlyItsPart) {
  TestRole app(*db_, "chopar_app", "NOLOGIN");
  TestRole relay(*db_, "chopar_relay", "NOLOGIN");
  auto conn = db_->Connect();
  const auto steps = Install(conn, {app.name(), relay.name()});
  EXPECT_EQ(steps.size(), 3u);
  Install(conn, {app.name(), relay.name()});  // again: nothing breaks, nothing doubles
  EXPECT_EQ(
      db_->Count(
          "SELECT count(*) FROM pg_indexes WHERE schemaname = 'chopar' AND tablename = 'outbox'"),
      3);

  const std::string& a = app.name();
  EXPECT_EQ(SqlStateAs(conn, a, "SELECT chopar.emit('task.created', 1, '{\"x\": 1}')"), "");
  EXPECT_EQ(
      SqlStateAs(conn, a, "INSERT INTO chopar.outbox (type, user_id) VALUES ('task.created', 1)"),
      "");
  EXPECT_EQ(
      SqlStateAs(
          conn, a,
          "INSERT INTO chopar.inbox (event_id) VALUES (gen_random_uuid()) ON CONFLICT DO NOTHING"),
      "");
  EXPECT_EQ(SqlStateAs(conn, a, "SELECT 1 FROM chopar.outbox"), kPermissionDenied);
  EXPECT_EQ(SqlStateAs(conn, a, "UPDATE chopar.outbox SET dispatched_at = now()"),
            kPermissionDenied);
  EXPECT_EQ(SqlStateAs(conn, a, "DELETE FROM chopar.outbox"), kPermissionDenied);
  EXPECT_EQ(SqlStateAs(conn, a, "SELECT 1 FROM chopar.inbox"), kPermissionDenied);

  const std::string& r = relay.name();
  EXPECT_EQ(
      SqlStateAs(conn, r,
                 "SELECT 1 FROM chopar.outbox WHERE dispatched_at IS NULL FOR UPDATE SKIP LOCKED"),
      "");
  EXPECT_EQ(SqlStateAs(conn, r, "UPDATE chopar.outbox SET dispatched_at = now()"), "");
  EXPECT_EQ(SqlStateAs(conn, r, "DELETE FROM chopar.outbox"), "");
  EXPECT_EQ(SqlStateAs(conn, r, "SELECT chopar.emit('task.created', 1, '{}')"), kPermissionDenied);
  EXPECT_EQ(SqlStateAs(conn, r, "INSERT INTO chopar.outbox (type) VALUES ('x')"),
            kPermissionDenied);
}

TEST_F(OutboxInstallTest, RefusesRolesPrivilegesCannotRestrictAndChangesNothing) {
  TestRole super(*db_, "chopar_super", "SUPERUSER NOLOGIN");
  TestRole owner(*db_, "chopar_owner", "NOLOGIN");
  auto conn = db_->Connect();
  EXPECT_THROW(Install(conn, {std::string("chopar_no_such_role"), std::nullopt}), InstallError);
  EXPECT_THROW(Install(conn, {super.name(), std::nullopt}), InstallError);
  EXPECT_THROW(Install(conn, {owner.name(), owner.name()}), InstallError);
  EXPECT_EQ(db_->Scalar("SELECT to_regclass('chopar.outbox') IS NOT NULL"), "f")
      << "a refused install left tables";

  // Installed by the role that is then named as the app role: it owns the table.
  conn.ExecScript("GRANT CREATE ON DATABASE " + db_->Scalar("SELECT current_database()") + " TO " +
                  owner.name());
  conn.ExecScript("SET ROLE " + owner.name());
  EXPECT_THROW(Install(conn, {owner.name(), std::nullopt}), InstallError);
  conn.ExecScript("RESET ROLE");
  EXPECT_EQ(db_->Scalar("SELECT to_regclass('chopar.outbox')::text"), "");
}

TEST_F(OutboxInstallTest, RefusesASchemaChoparThatTheApplicationRoleCreatedAndChangesNothing) {
  TestRole app(*db_, "chopar_app", "NOLOGIN");
  auto conn = db_->Connect();
  // The application's role got there first, and could have planted a
  // function or trigger in the schema that the install or the relay runs.
  conn.ExecScript("CREATE SCHEMA chopar AUTHORIZATION " + app.name());
  try {
    Install(conn, {app.name(), std::nullopt});
    ADD_FAILURE() << "installed into a schema owned by " << app.name();
  } catch (const InstallError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("schema chopar already exists and is owned by role " + app.name()),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("ALTER SCHEMA chopar OWNER TO"), std::string::npos) << message;
  }
  EXPECT_EQ(db_->Scalar("SELECT to_regclass('chopar.outbox') IS NOT NULL"), "f")
      << "a refused install left tables";

  // Handed over to the installing role, as the message says: installed.
  conn.ExecScript("ALTER SCHEMA chopar OWNER TO current_user");
  EXPECT_EQ(Install(conn, {app.name(), std::nullopt}).size(), 2u);
  EXPECT_EQ(db_->Scalar("SELECT to_regclass('chopar.outbox') IS NOT NULL"), "t");
}

TEST_F(OutboxInstallTest, ASchemaInstalledByTheSameNonSuperuserRoleIsInstalledAgain) {
  TestRole installer(*db_, "chopar_installer", "NOLOGIN");
  TestRole app(*db_, "chopar_app", "NOLOGIN");
  auto conn = db_->Connect();
  conn.ExecScript("GRANT CREATE ON DATABASE " + db_->Scalar("SELECT current_database()") + " TO " +
                  installer.name());
  conn.ExecScript("SET ROLE " + installer.name());
  Install(conn, {app.name(), std::nullopt});
  EXPECT_EQ(Install(conn, {app.name(), std::nullopt}).size(), 2u);
  conn.ExecScript("RESET ROLE");
  // Another role (here a superuser) finds a schema it does not own.
  EXPECT_THROW(Install(conn, {app.name(), std::nullopt}), InstallError);
}

}  // namespace
}  // namespace chopar::outbox
