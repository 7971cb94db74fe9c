// Erasing a user (docs/privacy.md): invisible at once, every row about the
// user gone afterwards — found from the catalog, so a table added later is
// covered without this test knowing it — and exactly once with erasers
// running side by side.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "core/request_error.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_erasure.hpp"
#include "hub/user_import.hpp"
#include "hub/user_request.hpp"
#include "hub/user_service.hpp"
#include "testing/test_database.hpp"

namespace chopar::hub {
namespace {

// What the user under erasure is known by: its id and every address and
// text of theirs, each distinctive enough to be searched for in any column.
constexpr std::int64_t kErased = 5;
constexpr std::int64_t kKept = 6;  // another user, left as it is
const char* const kEmail = "erase.me@example.org";
const char* const kPhone = "+998901112233";
const char* const kDiscordHook = "https://discord.example/hooks/erase-me-hook";
const char* const kChatId = "7770001234567";
const char* const kEndpoint = "https://push.example/erase-me-endpoint";
const char* const kDeviceToken = "erase-me-device-token";
const char* const kTitle = "erase-me-title";
const std::vector<std::string> kSearched = {kEmail,    kPhone,       kDiscordHook, kChatId,
                                            kEndpoint, kDeviceToken, kTitle};

// Columns whose name looks like a user's address or id (the broad
// pattern), each classified below: checked for the user's values, or not
// the subscriber's at all (with the reason). A column matching the
// pattern in neither list fails the test, so a new one is looked at.
const std::regex kAddressLike(
    "(^|_)(user_id|email|phone|address|chat_id|chat|endpoint|recipient|"
    "to|token|p256dh|auth)($|_)");
const std::set<std::string> kCheckedColumns = {
    "users.email",
    "users.phone",
    "user_addresses.address",
    "telegram_connections.chat_id",
    "telegram_link_tokens.used_chat_id",
    "telegram_link_tokens.token",
    "push_subscriptions.endpoint",
    "push_subscriptions.p256dh",
    "push_subscriptions.auth",
    "devices.token",
    "sink_messages.address",
    "suppressions.address",
};
const std::map<std::string, std::string> kNotTheSubscribers = {
    {"audit_log.address", "the network address of the caller who made the change"},
    {"console_accounts.email", "an operator's console account, not a subscriber"},
    {"console_sessions.address", "an operator's network address"},
    {"console_sessions.csrf_token", "an operator's session"},
    {"console_sessions.token_hash", "an operator's session"},
    {"provider_tokens.token", "a provider's access token"},
    {"slack_workspaces.bot_user_id", "the Slack app's bot in a workspace"},
    {"slack_workspaces.token_sealed", "the Slack app's token in a workspace"},
    {"users.token_generation", "a counter of the user's own row, gone with it"},
    {"deliveries.claim_token", "a worker's claim"},
    {"outbox.delivered_to", "the relay targets an event went to"},
};
// Tables kept on purpose (docs/privacy.md): the erasure record itself.
const std::set<std::string> kKeptTables = {"user_erasures"};

struct Column {
  std::string table;
  std::string name;
  std::string type;
  [[nodiscard]] std::string Qualified() const { return table + "." + name; }
};

class UserErasureTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    users_ = std::make_unique<UserService>(*pool_, UserService::Options{});
    notify_ = std::make_unique<NotifyService>(*pool_, clock_, metrics_);
    inbox_ = std::make_unique<InboxService>(*pool_);
  }

  void Sql(const std::string& sql) const { db_->Scalar(sql); }

  // Everything chopar keeps about a user, as its paths write it.
  // A user with everything, erased to completion by one eraser pass.
  void MakeUserWithEverythingAndEraseIt(std::int64_t id) {
    MakeUserWithEverything(id);
    (void)UserErasures(*pool_).Request(std::vector<std::int64_t>{id}, std::nullopt);
    UserEraser eraser(*pool_, metrics_);
    ASSERT_EQ(eraser.RunOnce(), 1);
  }

  void MakeUserWithEverything(std::int64_t id) {
    Sql("INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme') ON CONFLICT DO NOTHING");
    Sql("INSERT INTO chopar.topics (key, name) VALUES ('news', 'News') ON CONFLICT DO NOTHING");
    users_->PutUser(id, ParseUserUpdate({{"email", kEmail},
                                         {"phone", kPhone},
                                         {"tenants", {"acme"}},
                                         {"preferences", {{"telegram", false}}}}));
    users_->PutTelegram(id, {std::stoll(kChatId)});
    const std::string user = std::to_string(id);
    // An address of a registered channel, as PUT stores one (a binary
    // that registers discord makes the database accept it).
    Sql("INSERT INTO chopar.channel_kinds (name) VALUES ('discord') ON CONFLICT DO NOTHING");
    Sql("CREATE OR REPLACE FUNCTION chopar.known_channel(name text) RETURNS boolean LANGUAGE sql "
        "IMMUTABLE AS $$ SELECT name = ANY (ARRAY(SELECT k.name FROM chopar.channel_kinds k)) $$");
    Sql("INSERT INTO chopar.user_addresses (user_id, channel, address) VALUES (" + user +
        ", 'discord', '" + kDiscordHook + "')");
    Sql("INSERT INTO chopar.push_subscriptions (user_id, endpoint, p256dh, auth) VALUES (" + user +
        ", '" + kEndpoint + "', repeat('P', 87), repeat('a', 22))");
    Sql("INSERT INTO chopar.devices (user_id, platform, token) VALUES (" + user + ", 'android', '" +
        kDeviceToken + "')");
    Sql("INSERT INTO chopar.topic_subscribers (topic, user_id) VALUES ('news', " + user + ")");
    Sql("INSERT INTO chopar.telegram_link_tokens (token, user_id, created_at, expires_at) VALUES "
        "('linkoferased0123456789abcdefghij', " +
        user + ", now(), now() + interval '1 hour')");
    Sql("INSERT INTO chopar.schedules (key, user_id, cron, type, title, next_fire_at) VALUES "
        "('daily-of-erased', " +
        user + ", '0 9 * * *', 'daily.digest', '" + kTitle + "', now() + interval '1 day')");
    for (int i = 0; i < 3; ++i) {
      NotificationRequest r;
      r.user_id = id;
      r.type = "task.due";
      r.title = kTitle;
      r.body = std::string("to ") + kEmail;
      r.dedup_key = "key-" + std::to_string(i);
      r.channels = {core::ChannelKind::kEmail, core::ChannelKind::kSms};
      (void)notify_->Notify(r);
    }
    NotificationRequest later;
    later.user_id = id;
    later.type = "task.due";
    later.title = kTitle;
    later.delay_seconds = 3600;
    (void)notify_->Notify(later);
    // A digest window with an item, a sink message, an email receipt.
    Sql("INSERT INTO chopar.digests (user_id, type, key, closes_at) VALUES (" + user +
        ", 'task.due', 'k', now() + interval '1 hour')");
    Sql("INSERT INTO chopar.digest_items (digest_id, notification_id, channels) SELECT d.id, "
        "n.id, '{email}' FROM chopar.digests d, chopar.notifications n WHERE d.user_id = " +
        user + " AND n.user_id = " + user + " LIMIT 1");
    // A workflow run, as a type with steps gives each notification.
    Sql("INSERT INTO chopar.workflow_runs (notification_id, notification_created_at, user_id, "
        "type, due_at) SELECT id, created_at, user_id, type, now() FROM chopar.notifications "
        "WHERE user_id = " +
        user + " LIMIT 1");
    Sql("INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, address, subject, body) "
        "SELECT id, 'email', user_id, '" +
        std::string(kEmail) + "', '" + kTitle +
        "', 'body' FROM chopar.deliveries WHERE user_id = " + user + " AND channel = 'email'");
    Sql("UPDATE chopar.deliveries SET provider_message_id = 'ses-of-erased', provider_status = "
        "'delivered' WHERE user_id = " +
        user + " AND channel = 'email'");
    Sql("INSERT INTO chopar.suppressions (channel, address, reason, provider) VALUES ('email', '" +
        std::string(kEmail) + "', 'bounce', 'ses')");
    // Changes made through the API are audited, and relayed as chopar's own
    // events (audit.recorded); an event about the user in the outbox.
    const std::string actor =
        "SELECT set_config('chopar.actor', '{\"actor\": \"key:1\", \"name\": \"test\", "
        "\"address\": \"127.0.0.1\"}', false), set_config('chopar.events', ',audit.recorded,', "
        "false); ";
    db_->Connect().ExecScript(
        actor + "UPDATE chopar.users SET locale = 'uz' WHERE id = " + user +
        "; UPDATE chopar.devices SET app = 'x' WHERE user_id = " + user +
        "; INSERT INTO chopar.suppressions (channel, address, reason, provider) VALUES ('sms', '" +
        kPhone + "', 'manual', 'api'); DELETE FROM chopar.suppressions WHERE address = '" + kPhone +
        "'");
    Sql("INSERT INTO chopar.outbox (type, user_id, payload) VALUES ('notification.created', " +
        user + ", '{\"to\": \"" + kEmail + "\"}')");
    Sql("INSERT INTO chopar.notification_actions (notification_id, action_index, user_id, event) "
        "SELECT id, 0, user_id, 'invite.accept' FROM chopar.notifications WHERE user_id = " +
        user + " LIMIT 1");
  }

  void MakePlainUser(std::int64_t id) {
    users_->PutUser(id, ParseUserUpdate({{"email", "kept@example.org"}}));
    NotificationRequest r;
    r.user_id = id;
    r.type = "task.due";
    r.title = "kept";
    r.channels = {core::ChannelKind::kEmail};
    (void)notify_->Notify(r);
  }

  std::vector<Column> CatalogColumns() const {
    auto conn = db_->Connect();
    const auto rows = conn.ExecText(
        "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
        "WHERE n.nspname = 'chopar' AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
        "ORDER BY 1, a.attnum",
        {});
    std::vector<Column> columns;
    for (int i = 0; i < rows.Rows(); ++i) {
      columns.push_back({rows.String(i, 0), rows.String(i, 1), rows.String(i, 2)});
    }
    return columns;
  }

  // Every row of schema chopar that still names user `id` or one of its
  // values, as "table.column: what".
  std::vector<std::string> Leftovers(std::int64_t id) const {
    std::vector<std::string> found;
    const std::string user = std::to_string(id);
    for (const Column& c : CatalogColumns()) {
      if (kKeptTables.contains(c.table)) continue;
      const std::string from = "chopar." + c.table;
      const std::string q = c.Qualified();
      const bool user_id = c.name == "user_id" || c.name.ends_with("_user_id");
      if (user_id && c.name != "bot_user_id") {
        if (db_->Count("SELECT count(*) FROM " + from + " WHERE " + c.name + " = " + user) > 0) {
          found.push_back(q + ": the user's id");
        }
      }
      if (c.table == "users" && c.name == "id" &&
          db_->Count("SELECT count(*) FROM chopar.users WHERE id = " + user) > 0) {
        found.push_back("users.id: the users row");
      }
      const bool textual = c.type == "text" || c.type == "jsonb" || c.type == "json" ||
                           c.type.starts_with("character") || c.type == "text[]" ||
                           c.type == "bigint";
      if (!textual || kNotTheSubscribers.contains(q)) continue;
      for (const std::string& value : kSearched) {
        const std::string test =
            c.type == "bigint" ? c.name + "::text = '" + value + "'"
                               : "strpos(lower(" + c.name + "::text), lower('" + value + "')) > 0";
        if (db_->Count("SELECT count(*) FROM " + from + " WHERE " + test) > 0) {
          found.push_back(q + ": " + value);
        }
      }
    }
    return found;
  }

  core::SystemClock clock_;
  core::MetricsRegistry metrics_;
  std::unique_ptr<UserService> users_;
  std::unique_ptr<NotifyService> notify_;
  std::unique_ptr<InboxService> inbox_;
};

TEST_F(UserErasureTest, EveryAddressLikeColumnIsClassified) {
  if (IsSkipped()) return;
  for (const Column& c : CatalogColumns()) {
    if (!std::regex_search(c.name, kAddressLike)) continue;
    const std::string q = c.Qualified();
    const bool user_id = c.name == "user_id" || c.name.ends_with("_user_id");
    EXPECT_TRUE(user_id || kCheckedColumns.contains(q) || kNotTheSubscribers.contains(q) ||
                kKeptTables.contains(c.table))
        << q << " looks like a user's id or address: check it in the erasure (and in "
        << "kCheckedColumns) or say in kNotTheSubscribers why it is not one";
  }
}

TEST_F(UserErasureTest, TheSetUpLeavesRowsEverywhereTheTestLooks) {
  if (IsSkipped()) return;
  MakeUserWithEverything(kErased);
  const auto found = Leftovers(kErased);
  const std::set<std::string> tables = [&] {
    std::set<std::string> t;
    for (const std::string& f : found) t.insert(f.substr(0, f.find('.')));
    return t;
  }();
  for (const char* table :
       {"users", "user_addresses", "telegram_connections", "telegram_link_tokens",
        "push_subscriptions", "devices", "topic_subscribers", "user_tenants", "schedules",
        "delayed_notifications", "digests", "notifications", "deliveries", "notification_dedup",
        "workflow_runs", "sink_messages", "suppressions", "audit_log", "outbox"}) {
    EXPECT_TRUE(tables.contains(table)) << table << " has no row of the user to erase";
  }
}

TEST_F(UserErasureTest, ErasureLeavesNoRowNamingTheUser) {
  if (IsSkipped()) return;
  MakeUserWithEverything(kErased);
  MakePlainUser(kKept);
  const UserErasures erasures(*pool_);
  const auto asked = erasures.Request(std::vector<std::int64_t>{kErased}, std::nullopt);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_FALSE(asked[0].completed_at);

  UserEraser eraser(*pool_, metrics_, {.batch = 2});
  EXPECT_EQ(eraser.RunOnce(), 1);
  const auto done = erasures.Find(std::vector<std::int64_t>{kErased}, std::nullopt);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].completed_at);

  const auto left = Leftovers(kErased);
  EXPECT_TRUE(left.empty()) << "left about the user: " << [&] {
    std::string s;
    for (const auto& l : left) s += "\n  " + l;
    return s;
  }();
  // The audit rows keep who did what and when, with the values erased.
  EXPECT_GT(db_->Count("SELECT count(*) FROM chopar.audit_log WHERE resource = 'user' AND "
                       "resource_id = '5' AND after = '\"[erased]\"'"),
            0);
  // The other user is untouched.
  EXPECT_EQ(users_->GetUser(kKept).email, "kept@example.org");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 6"), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE user_id = 6"), 1);
}

TEST_F(UserErasureTest, TheUserIsInvisibleFromTheRequestOn) {
  if (IsSkipped()) return;
  MakeUserWithEverything(kErased);
  ASSERT_TRUE(inbox_->TokenGeneration(kErased));
  const UserErasures erasures(*pool_);
  (void)erasures.Request(std::vector<std::int64_t>{kErased}, std::nullopt);

  const auto code = [](const std::function<void()>& call) {
    try {
      call();
    } catch (const core::RequestError& e) {
      return e.code();
    }
    return core::ErrorCode::kBadRequest;
  };
  EXPECT_EQ(code([&] { users_->GetUser(kErased); }), core::ErrorCode::kUserNotFound);
  EXPECT_FALSE(inbox_->TokenGeneration(kErased));        // no new subscriber token
  EXPECT_EQ(inbox_->SubscriberGeneration(kErased), -1);  // and every one issued is refused
  EXPECT_FALSE(inbox_->SubscriberGeneration(404));       // (a user that never existed: as before)
  EXPECT_FALSE(inbox_->UserExists(kErased));
  NotificationRequest r;
  r.user_id = kErased;
  r.type = "task.due";
  r.title = "late";
  EXPECT_EQ(code([&] { (void)notify_->Notify(r); }), core::ErrorCode::kUserNotFound);
  const auto batch = notify_->NotifyBatch({r});
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<core::RequestError>(batch[0]));
  // Both dropped and counted; a user that never existed is not.
  r.user_id = 404;
  EXPECT_THROW((void)notify_->Notify(r), core::RequestError);
  EXPECT_EQ(
      metrics_.GetCounter("chopar_erased_user_events_dropped_total", "", {{"source", "notify"}})
          .Value(),
      2);
  // PUT while the erasure is pending: a conflict, nothing changes.
  EXPECT_EQ(code([&] {
              users_->PutUser(kErased, ParseUserUpdate({{"locale", "ru"}}));
            }),
            core::ErrorCode::kErasurePending);
  EXPECT_EQ(db_->Scalar("SELECT locale FROM chopar.users WHERE id = 5"), "uz");
  // Asking again keeps the first request.
  const auto again = erasures.Request(std::vector<std::int64_t>{kErased}, std::nullopt);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_FALSE(again[0].completed_at);
}

TEST_F(UserErasureTest, LateEventsAfterCompletionAreDroppedAndPutMakesANewUser) {
  if (IsSkipped()) return;
  ASSERT_NO_FATAL_FAILURE(MakeUserWithEverythingAndEraseIt(kErased));

  NotificationRequest r;
  r.user_id = kErased;
  r.type = "task.due";
  r.title = "late";
  EXPECT_THROW((void)notify_->Notify(r), core::RequestError);
  r.delay_seconds = 60;
  EXPECT_THROW((void)notify_->Notify(r), core::RequestError);
  const auto batch = notify_->NotifyBatch({r});
  EXPECT_TRUE(std::holds_alternative<core::RequestError>(batch.at(0)));
  // Nothing was left to come due or fire: the delayed notification and the
  // schedule went with the user.
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.delayed_notifications"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.schedules"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 5"), 0);

  EXPECT_EQ(inbox_->SubscriberGeneration(kErased), -1);  // its tokens stay refused

  // An explicit PUT makes a new user of the id; the erasure record stays.
  const User fresh = users_->PutUser(kErased, ParseUserUpdate({{"locale", "ru"}}));
  EXPECT_EQ(fresh.locale, "ru");
  EXPECT_FALSE(fresh.email);
  // The erased user's tokens (generation 0 and up) do not open the new
  // user's inbox.
  EXPECT_GT(inbox_->SubscriberGeneration(kErased).value_or(0), 1'000'000'000);
  const auto record = UserErasures(*pool_).Find(std::vector<std::int64_t>{kErased}, std::nullopt);
  ASSERT_EQ(record.size(), 1u);
  EXPECT_TRUE(record[0].completed_at);
}

TEST_F(UserErasureTest, AnImportAfterCompletionMakesANewUserWhomTheOldTokensDoNotOpen) {
  if (IsSkipped()) return;
  ASSERT_NO_FATAL_FAILURE(MakeUserWithEverythingAndEraseIt(kErased));

  // The set-based path of the import (a line without addresses or tenants).
  UserImport import(*pool_, *users_, UserImport::Options{});
  import.AddJsonLine(R"({"id": 5, "locale": "uz"})", 1);
  import.Finish();
  ASSERT_EQ(import.counts().created, 1);
  EXPECT_EQ(users_->GetUser(kErased).locale, "uz");
  EXPECT_GT(inbox_->SubscriberGeneration(kErased).value_or(0), 1'000'000'000);
}

TEST_F(UserErasureTest, AConfinedKeyErasesItsTenantsUsersOnly) {
  if (IsSkipped()) return;
  MakeUserWithEverything(kErased);  // in acme
  MakePlainUser(kKept);             // in no tenant
  const UserErasures erasures(*pool_);
  const auto asked =
      erasures.Request(std::vector<std::int64_t>{kErased, kKept, 404}, std::string("acme"));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].user_id, kErased);
  EXPECT_EQ(users_->GetUser(kKept).id, kKept);
  EXPECT_EQ(erasures.Find(std::vector<std::int64_t>{kErased}, std::string("acme")).size(), 1u);
  EXPECT_EQ(erasures.Find(std::vector<std::int64_t>{kErased}, std::string("globex")).size(), 0u);
  UserEraser eraser(*pool_, metrics_);
  ASSERT_EQ(eraser.RunOnce(), 1);
  // Completed: nothing tells which tenant the user was in.
  EXPECT_EQ(erasures.Find(std::vector<std::int64_t>{kErased}, std::string("acme")).size(), 0u);
  EXPECT_EQ(erasures.Find(std::vector<std::int64_t>{kErased}, std::nullopt).size(), 1u);
}

// Two erasers side by side (as two worker processes run them): each batch
// is done once, no step fails, each erasure completes once.
TEST_F(UserErasureTest, TwoErasersAtOnceDoEachBatchOnce) {
  if (IsSkipped()) return;
  constexpr int kUsers = 6;
  std::vector<std::int64_t> ids;
  for (int u = 1; u <= kUsers; ++u) {
    ids.push_back(100 + u);
    users_->PutUser(100 + u, ParseUserUpdate({{"email", "u" + std::to_string(u) + "@x.org"}}));
  }
  // 300 notifications with a delivery each per user, set-based.
  Sql("INSERT INTO chopar.notifications (user_id, type, title, created_at) SELECT u, 'a.b', 't', "
      "now() FROM generate_series(101, 106) u, generate_series(1, 300)");
  Sql("INSERT INTO chopar.deliveries (notification_id, user_id, channel, status, created_at) "
      "SELECT id, user_id, 'email', 'failed', created_at FROM chopar.notifications");
  const UserErasures erasures(*pool_);
  (void)erasures.Request(ids, std::nullopt);

  core::MetricsRegistry metrics_a, metrics_b;
  UserEraser a(*pool_, metrics_a, {.batch = 50});
  UserEraser b(*pool_, metrics_b, {.batch = 50});
  std::atomic<int> completed{0};
  std::atomic<int> errors{0};
  const auto run = [&](UserEraser& eraser) {
    for (;;) {
      try {
        const auto step = eraser.StepOnce();
        if (step.completed) ++completed;
        if (!step.user_id &&
            db_->Count("SELECT count(*) FROM chopar.user_erasures WHERE completed_at IS NULL") == 0)
          return;
      } catch (const std::exception& e) {
        ++errors;
        ADD_FAILURE() << e.what();
        return;
      }
    }
  };
  std::thread ta([&] { run(a); });
  std::thread tb([&] { run(b); });
  ta.join();
  tb.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(completed.load(), kUsers);
  const auto rows = [](core::MetricsRegistry& m, const char* kind) {
    return m.GetCounter("chopar_user_erasure_rows_total", "", {{"kind", kind}}).Value();
  };
  EXPECT_EQ(rows(metrics_a, "notifications") + rows(metrics_b, "notifications"), kUsers * 300);
  EXPECT_EQ(rows(metrics_a, "deliveries") + rows(metrics_b, "deliveries"), kUsers * 300);
  EXPECT_EQ(metrics_a.GetCounter("chopar_user_erasures_completed_total", "").Value() +
                metrics_b.GetCounter("chopar_user_erasures_completed_total", "").Value(),
            kUsers);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
}

// Not a pass/fail test of time: it prints how long live traffic (notifying
// other users and marking their notifications read, one thread) waited at
// most while a user with 50,000 notifications and deliveries was erased,
// against the same traffic alone (docs/BENCHMARKS.md "User erasure").
TEST_F(UserErasureTest, BesideLiveTrafficPrintsTheLongestStall) {
  if (IsSkipped()) return;
  constexpr int kHeavy = 50'000;
  users_->PutUser(kErased, ParseUserUpdate({{"email", kEmail}}));
  for (int u = 10; u < 20; ++u) {
    users_->PutUser(u, ParseUserUpdate({{"email", "live" + std::to_string(u) + "@x.org"}}));
  }
  Sql("WITH n AS (INSERT INTO chopar.notifications (user_id, type, title) SELECT 5, 'a.b', 't' "
      "FROM generate_series(1, " +
      std::to_string(kHeavy) +
      ") RETURNING id, created_at), d AS (INSERT INTO chopar.deliveries (notification_id, "
      "user_id, channel, status, created_at) SELECT id, 5, 'email', 'failed', created_at FROM n "
      "RETURNING id, created_at) INSERT INTO chopar.sink_messages (delivery_id, channel, user_id, "
      "address, body, created_at) SELECT id, 'email', 5, 'erase.me@example.org', 'b', created_at "
      "FROM d");
  Sql("ANALYZE");

  using Clock = std::chrono::steady_clock;
  struct Traffic {
    int operations = 0;
    Clock::duration longest{};
  };
  // One notify and one mark-read per round, each timed.
  const auto live = [&](const std::function<bool()>& go_on) {
    Traffic traffic;
    for (int round = 0; go_on(); ++round) {
      NotificationRequest r;
      r.user_id = 10 + round % 10;
      r.type = "task.due";
      r.title = "live";
      r.channels = {core::ChannelKind::kEmail};
      auto start = Clock::now();
      (void)notify_->Notify(r);
      traffic.longest = std::max(traffic.longest, Clock::now() - start);
      start = Clock::now();
      pool_->Acquire()->ExecText(
          "UPDATE chopar.notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL",
          db::Params(r.user_id));
      traffic.longest = std::max(traffic.longest, Clock::now() - start);
      traffic.operations += 2;
    }
    return traffic;
  };
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };

  int alone_rounds = 0;
  const Traffic alone = live([&] { return alone_rounds++ < 500; });

  const UserErasures erasures(*pool_);
  (void)erasures.Request(std::vector<std::int64_t>{kErased}, std::nullopt);
  UserEraser eraser(*pool_, metrics_);
  std::atomic<bool> erasing{true};
  Clock::duration erasure_took{};
  std::thread erase([&] {
    const auto start = Clock::now();
    EXPECT_EQ(eraser.RunOnce(), 1);
    erasure_took = Clock::now() - start;
    erasing = false;
  });
  const Traffic beside = live([&] { return erasing.load(); });
  erase.join();

  std::cout << "user erasure: " << kHeavy << " notifications, " << kHeavy << " deliveries, "
            << kHeavy << " sink messages in batches of " << UserEraserSettings{}.batch << ": "
            << ms(erasure_took) << " ms\n"
            << "  live traffic beside it: " << beside.operations << " operations, longest wait "
            << ms(beside.longest) << " ms\n"
            << "  the same traffic alone: " << alone.operations << " operations, longest wait "
            << ms(alone.longest) << " ms\n";
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 5"), 0);
}

}  // namespace
}  // namespace chopar::hub
