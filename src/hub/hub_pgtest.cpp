#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/request_error.hpp"
#include "hub/inbox_service.hpp"
#include "hub/notify_service.hpp"
#include "hub/user_request.hpp"
#include "hub/user_service.hpp"
#include "templates/template_store.hpp"
#include "testing/test_database.hpp"

namespace chopar::hub {
namespace {

using core::ChannelKind;
using Kinds = std::vector<ChannelKind>;
constexpr auto kMove = UserService::EndpointOfAnother::kMove;

constexpr const char* kP256dh =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
constexpr const char* kAuth = "BTBZMqHH6r4Tts7J_aSIgg";

class HubTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    users_ = std::make_unique<UserService>(*pool_, UserService::Options{});
    notify_ = std::make_unique<NotifyService>(*pool_, clock_, metrics_);
    inbox_ = std::make_unique<InboxService>(*pool_);
  }

  // PUT /v1/users/{id} with `body`, as the route parses it.
  User PutUser(std::int64_t id, const nlohmann::json& body) {
    return users_->PutUser(id, ParseUserUpdate(body));
  }

  NotificationRequest Request(std::int64_t user, std::optional<std::string> dedup = std::nullopt) {
    NotificationRequest r;
    r.user_id = user;
    r.type = "task.due";
    r.title = "Muddat yaqin";
    r.body = "Non olish — 18:00";
    r.link = "/tasks/1";
    r.dedup_key = std::move(dedup);
    return r;
  }

  double CreatedTotal() {
    return metrics_.GetCounter("chopar_notifications_created_total", "").Value();
  }

  core::SystemClock clock_;
  core::MetricsRegistry metrics_;
  std::unique_ptr<UserService> users_;
  std::unique_ptr<NotifyService> notify_;
  std::unique_ptr<InboxService> inbox_;
};

// Canon test 1 of the hub's source document: preference + address + default, no SMS.
TEST_F(HubTest, ChannelChoiceForTheFourUsersOfTheSourceDocument) {
  PutUser(1, {{"email", "aziz@example.uz"},
              {"phone", "+998901111111"},
              {"preferences", {{"email", true}, {"telegram", true}}}});
  users_->PutTelegram(1, {.chat_id = 900000001});
  PutUser(2, {{"email", "dilnoza@example.uz"}, {"preferences", {{"email", false}}}});
  PutUser(3, {{"email", "sardor@example.uz"}});
  PutUser(4, {{"email", "gulnora@example.uz"},
              {"preferences", {{"email", true}, {"telegram", false}}}});
  users_->AddPushSubscription(
      4, {.endpoint = "https://push.example/abc", .p256dh = kP256dh, .auth = kAuth}, kMove);

  EXPECT_EQ(notify_->Notify(Request(1)).channels,
            (Kinds{ChannelKind::kEmail, ChannelKind::kTelegram}));
  EXPECT_EQ(notify_->Notify(Request(2)).channels, Kinds{});
  EXPECT_EQ(notify_->Notify(Request(3)).channels, (Kinds{ChannelKind::kEmail}));
  EXPECT_EQ(notify_->Notify(Request(4)).channels, (Kinds{ChannelKind::kEmail, ChannelKind::kPush}));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 5);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'sms'"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 4);  // in-app for everyone
}

// Canon test 2 of the hub's source document: the cron finds the 18:00 task at 17:05 and 17:10.
TEST_F(HubTest, RepeatedDedupKeyCreatesNothing) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  const auto first = notify_->Notify(Request(1, "vazifa:1:muddat:2026-10-28"));
  const auto again = notify_->Notify(Request(1, "vazifa:1:muddat:2026-10-28"));
  EXPECT_TRUE(first.created);
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.id, first.id);
  EXPECT_TRUE(again.channels.empty());
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 1);
  // A null key never deduplicates.
  notify_->Notify(Request(1));
  notify_->Notify(Request(1));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 3);
}

TEST_F(HubTest, ConcurrentRepeatsOfOneKeyCreateOneRow) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  std::vector<std::thread> threads;
  std::atomic<int> created{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] { created += notify_->Notify(Request(1, "same")).created ? 1 : 0; });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 1);
}

// notification_dedup is the one arbiter of a key: threads sending one key at
// once, immediately, delayed or both, get one notification (or one delayed
// notification) between them, and all answer with its id. Several keys, so
// the threads race on each.
TEST_F(HubTest, ConcurrentImmediateAndDelayedRepeatsOfOneKeyKeepOne) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  struct Mix {
    const char* name;
    int immediate;
    int delayed;
  };
  for (const Mix mix : {Mix{"immediate", 8, 0}, Mix{"delayed", 0, 8}, Mix{"mixed", 4, 4}}) {
    for (int round = 0; round < 5; ++round) {
      const std::string key = std::string(mix.name) + ":" + std::to_string(round);
      std::vector<std::thread> threads;
      std::mutex mutex;
      std::set<std::int64_t> ids;
      int created = 0;
      for (int i = 0; i < mix.immediate + mix.delayed; ++i) {
        threads.emplace_back([&, i] {
          NotificationRequest r = Request(1, key);
          if (i >= mix.immediate) r.delay_seconds = 3600;
          const NotifyResult result = notify_->Notify(r);
          const std::lock_guard lock(mutex);
          created += result.created ? 1 : 0;
          ids.insert(result.id);
        });
      }
      for (auto& t : threads) t.join();
      SCOPED_TRACE(key);
      EXPECT_EQ(created, 1);
      EXPECT_EQ(ids.size(), 1u) << "every repeat answers with the one id";
      EXPECT_EQ(
          db_->Count("SELECT (SELECT count(*) FROM chopar.notifications WHERE dedup_key = '" + key +
                     "') + (SELECT count(*) FROM chopar.delayed_notifications "
                     "WHERE dedup_key = '" +
                     key + "')"),
          1);
      EXPECT_EQ(db_->Count("SELECT notification_id FROM chopar.notification_dedup "
                           "WHERE user_id = 1 AND dedup_key = '" +
                           key + "'"),
                *ids.begin());
    }
  }
}

// Single notifications that arrive while one is being written go together in
// the next statement, each with its own answer. The first one's insert waits
// on a lock (its user's row, held FOR UPDATE by another transaction), so the
// eight that arrive meanwhile are known to queue behind it.
TEST_F(HubTest, SinglesArrivingDuringAWriteAreWrittenTogetherEachWithItsOwnResult) {
  for (std::int64_t id = 1; id <= 8; ++id)
    PutUser(id, {{"email", "user" + std::to_string(id) + "@example.uz"}});
  auto held = pool_->Begin("user_update");
  held.ExecText("SELECT 1 FROM chopar.users WHERE id = 1 FOR UPDATE");

  std::mutex mutex;
  std::map<std::int64_t, std::int64_t> ids;  // user → notification id
  std::optional<core::ErrorCode> unknown_user_error;
  auto notify = [&](std::int64_t user) {
    try {
      const NotifyResult result = notify_->Notify(Request(user));
      const std::lock_guard lock(mutex);
      EXPECT_TRUE(result.created);
      ids[user] = result.id;
    } catch (const core::RequestError& e) {
      const std::lock_guard lock(mutex);
      unknown_user_error = e.code();
    }
  };
  std::vector<std::jthread> threads;
  threads.emplace_back(notify, 1);
  while (db_->Count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()") == 0)
    std::this_thread::yield();
  for (std::int64_t user = 2; user <= 8; ++user) threads.emplace_back(notify, user);
  threads.emplace_back(notify, 99);
  while (notify_->WaitingSingles() < 8) std::this_thread::yield();
  held.Commit();
  threads.clear();

  auto& coalesced =
      metrics_.GetHistogram("chopar_notify_coalesced_batch_size", "", {}, {1, 2, 4, 8, 16, 32, 64});
  EXPECT_EQ(coalesced.Count(), 2u) << "the first alone, then the eight that waited, together";
  EXPECT_EQ(coalesced.Sum(), 9.0);
  EXPECT_EQ(unknown_user_error, core::ErrorCode::kUserNotFound)
      << "the unknown user's call fails alone";
  ASSERT_EQ(ids.size(), 8u);
  for (const auto& [user, id] : ids) {
    EXPECT_EQ(
        db_->Count("SELECT user_id FROM chopar.notifications WHERE id = " + std::to_string(id)),
        user);
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 8);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 8);
  EXPECT_EQ(CreatedTotal(), 8.0);
}

TEST_F(HubTest, BatchItemsStandOnTheirOwn) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  PutUser(2, {{"email", "dilnoza@example.uz"}});
  notify_->Notify(Request(2, "old"));
  const auto results = notify_->NotifyBatch(
      {Request(1, "k"), Request(99), Request(1, "k"), Request(2, "old"), Request(2)});
  ASSERT_EQ(results.size(), 5u);
  const auto& a = std::get<NotifyResult>(results[0]);
  EXPECT_TRUE(a.created);
  EXPECT_EQ(std::get<core::RequestError>(results[1]).code(), core::ErrorCode::kUserNotFound);
  const auto& dup_in_batch = std::get<NotifyResult>(results[2]);
  EXPECT_FALSE(dup_in_batch.created);
  EXPECT_EQ(dup_in_batch.id, a.id);
  EXPECT_FALSE(std::get<NotifyResult>(results[3]).created);
  EXPECT_TRUE(std::get<NotifyResult>(results[4]).created);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 3);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 3);
}

TEST_F(HubTest, UnknownUserIsNotFoundAndNothingIsWritten) {
  try {
    notify_->Notify(Request(42));
    FAIL() << "expected user_not_found";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kUserNotFound);
    EXPECT_EQ(e.field(), "user_id");
  }
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
}

TEST_F(HubTest, NotifyInSeesWhatItsTransactionDeferred) {
  constexpr db::Query kInsertUser{"test.insert_user",
                                  "INSERT INTO users (id, email) VALUES ($1, $2)"};
  auto tx = pool_->Begin("test_notify_in");
  tx.Defer(kInsertUser, 5, "e@example.uz");
  const auto results = NotifyService::NotifyIn(tx, {Request(5)}, clock_.Now());
  tx.Commit();
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<NotifyResult>(results[0]));
  EXPECT_TRUE(std::get<NotifyResult>(results[0]).created);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE user_id = 5"), 1);
}

// Deliveries given a broadcast's due time are bulk (claimed after the
// ordinary ones that are due); any other notification's are ordinary.
TEST_F(HubTest, OnlyABroadcastsDeliveriesAreBulk) {
  PutUser(7, {{"email", "e@example.uz"}});
  auto tx = pool_->Begin("test_bulk");
  NotifyService::NotifyIn(tx, {Request(7)}, clock_.Now());
  NotifyService::NotifyIn(tx, {Request(7)}, clock_.Now(), nullptr,
                          clock_.Now() + std::chrono::seconds(30));
  tx.Commit();
  EXPECT_EQ(
      db_->Scalar("SELECT string_agg(bulk::text || ' ' || (next_attempt_at > created_at)::text, "
                  "', ' ORDER BY id) FROM chopar.deliveries WHERE user_id = 7"),
      "false false, true true");
}

// Regression: the created counter was incremented inside NotifyIn, before the
// caller's transaction committed, so a rolled-back firing was still counted.
TEST_F(HubTest, CreatedCounterCountsCommittedNotificationsOnly) {
  PutUser(6, {{"email", "e@example.uz"}});
  {
    auto tx = pool_->Begin("test_rolled_back");
    const auto results = NotifyService::NotifyIn(tx, {Request(6), Request(6)}, clock_.Now());
    ASSERT_TRUE(std::get<NotifyResult>(results[0]).created);
  }  // rolled back
  EXPECT_EQ(CreatedTotal(), 0);

  auto tx = pool_->Begin("test_committed");
  const auto results = NotifyService::NotifyIn(
      tx, {Request(6), Request(6, "same"), Request(6, "same")}, clock_.Now());
  tx.Commit();
  NotifyMetrics(metrics_).CountCommitted(results);
  EXPECT_EQ(CreatedTotal(), 2) << "the repeated dedup key created nothing";

  notify_->Notify(Request(6));
  notify_->Notify(Request(6, "same"));  // exists: not created
  EXPECT_EQ(CreatedTotal(), 3);
}

// Canon test 7 of the hub's source document: unread count, keyset list, mark read.
TEST_F(HubTest, InboxCountsListsAndMarksRead) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  PutUser(2, {{"email", "dilnoza@example.uz"}});
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(notify_->Notify(Request(1)).id);
  const auto other = notify_->Notify(Request(2)).id;
  EXPECT_EQ(inbox_->UnreadCount(1), 5);

  auto page1 = inbox_->List(1, {.limit = 2});
  ASSERT_EQ(page1.items.size(), 2u);
  EXPECT_EQ(page1.items[0].id, ids[4]);  // newest first
  EXPECT_EQ(page1.items[1].id, ids[3]);
  ASSERT_TRUE(page1.next_cursor);
  auto page2 = inbox_->List(1, {.limit = 2, .cursor = page1.next_cursor});
  EXPECT_EQ(page2.items[0].id, ids[2]);
  auto page3 = inbox_->List(1, {.limit = 2, .cursor = page2.next_cursor});
  ASSERT_EQ(page3.items.size(), 1u);
  EXPECT_EQ(page3.items[0].id, ids[0]);
  EXPECT_EQ(page3.next_cursor, std::nullopt);

  // Another user's id is ignored; a repeat reports 0.
  EXPECT_EQ(inbox_->MarkRead(1, {.ids = {ids[0], ids[1], other}}), 2);
  EXPECT_EQ(inbox_->MarkRead(1, {.ids = {ids[0], ids[1], other}}), 0);
  EXPECT_EQ(inbox_->UnreadCount(1), 3);
  EXPECT_EQ(inbox_->UnreadCount(2), 1);
  auto unread = inbox_->List(1, {.limit = 10, .unread_only = true});
  EXPECT_EQ(unread.items.size(), 3u);
  EXPECT_EQ(inbox_->MarkRead(1, {.all = true}), 3);
  EXPECT_EQ(inbox_->MarkRead(1, {.all = true}), 0);
  EXPECT_EQ(inbox_->UnreadCount(1), 0);
  EXPECT_THROW(inbox_->List(1, {.limit = 2, .cursor = "garbage!"}), core::RequestError);
}

TEST_F(HubTest, UserPutMergesAndNullClears) {
  PutUser(7, {{"email", "a@example.uz"},
              {"phone", "+998 90 123-45-67"},
              {"timezone", "Asia/Tashkent"},
              {"preferences", {{"email", true}, {"sms", true}}},
              {"quiet_hours", {{"start", "22:00"}, {"end", "08:00"}}}});
  UserUpdate update;
  update.phone = FieldUpdate<std::string>::Clear();
  update.preferences = FieldUpdate<nlohmann::json>::Set({{"sms", nullptr}, {"push", false}});
  User user = users_->PutUser(7, update);
  EXPECT_EQ(user.email, "a@example.uz");
  EXPECT_EQ(user.phone, std::nullopt);
  EXPECT_EQ(user.timezone, "Asia/Tashkent");
  EXPECT_EQ(user.preferences, (nlohmann::json{{"email", true}, {"push", false}}));
  ASSERT_TRUE(user.quiet_hours);
  EXPECT_EQ(user.quiet_hours->start, "22:00");
  EXPECT_FALSE(user.reachable[core::ChannelKind::kSms]);
  EXPECT_TRUE(user.reachable[core::ChannelKind::kEmail]);
  EXPECT_EQ(PutUser(7, {{"preferences", nullptr}}).preferences, nlohmann::json::object());
  EXPECT_THROW(PutUser(7, {{"timezone", "Mars/Olympus"}}), core::RequestError);
  EXPECT_EQ(users_->GetUser(7).timezone, "Asia/Tashkent");
  // Cleared members go back to their defaults.
  user = PutUser(7, {{"timezone", nullptr}, {"quiet_hours", nullptr}, {"email", nullptr}});
  EXPECT_EQ(user.timezone, "UTC");
  EXPECT_FALSE(user.quiet_hours);
  EXPECT_EQ(user.email, std::nullopt);
}

// "data" merges as "preferences" does, at the top level: a key given is
// replaced (a nested object as a whole), a key given null removed, the
// others kept; "data": null clears it; a member left out keeps it.
TEST_F(HubTest, UserDataMergesKeyByKeyAndNullClears) {
  User user =
      PutUser(8, {{"data", {{"plan", "pro"}, {"seats", 5}, {"org", {{"id", 1}, {"x", 2}}}}}});
  EXPECT_EQ(user.data,
            (nlohmann::json{{"plan", "pro"}, {"seats", 5}, {"org", {{"id", 1}, {"x", 2}}}}));
  user = PutUser(8, {{"data", {{"seats", nullptr}, {"org", {{"id", 2}}}, {"new", true}}}});
  EXPECT_EQ(user.data, (nlohmann::json{{"plan", "pro"}, {"org", {{"id", 2}}}, {"new", true}}));
  EXPECT_EQ(PutUser(8, {{"email", "a@example.uz"}}).data, user.data) << "left out: kept";
  EXPECT_EQ(users_->GetUser(8).data, user.data);
  EXPECT_EQ(PutUser(8, {{"data", nullptr}}).data, nlohmann::json::object());
  // A new user's nulls are removed too.
  EXPECT_EQ(PutUser(9, {{"data", {{"a", nullptr}, {"b", 1}}}}).data, (nlohmann::json{{"b", 1}}));
}

TEST_F(HubTest, UserDataOverSixteenKilobytesSentOrMergedIsRefusedAndNothingChanges) {
  const auto refused_field = [](const std::function<void()>& put) -> std::string {
    try {
      put();
    } catch (const core::RequestError& e) {
      return e.field().value_or("");
    }
    return "(accepted)";
  };
  EXPECT_EQ(refused_field([&] {
              PutUser(3, {{"data", {{"big", std::string(17000, 'x')}}}});
            }),
            "data");
  EXPECT_EQ(refused_field([&] { PutUser(3, {{"data", "pro"}}); }), "data");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.users WHERE id = 3"), 0);
  // Each half fits; merged they do not.
  PutUser(3, {{"data", {{"a", std::string(9000, 'x')}}}});
  EXPECT_EQ(refused_field([&] {
              PutUser(3, {{"data", {{"b", std::string(9000, 'y')}}}});
            }),
            "data");
  EXPECT_EQ(users_->GetUser(3).data, (nlohmann::json{{"a", std::string(9000, 'x')}}));
  // Replacing the big key instead fits.
  EXPECT_EQ(PutUser(3, {{"data", {{"a", nullptr}, {"b", std::string(9000, 'y')}}}}).data.size(),
            1u);
  // The database holds the same bound.
  EXPECT_THROW(
      db_->Scalar("UPDATE chopar.users SET data = jsonb_build_object('a', repeat('x', 17000))"
                  " WHERE id = 3"),
      std::exception);
  EXPECT_THROW(db_->Scalar("UPDATE chopar.users SET data = '[1]' WHERE id = 3"), std::exception);
}

// {{user.data.*}} renders from the user's data, read in notify's one
// query of the recipients.
TEST_F(HubTest, ATemplateRendersTheUsersData) {
  templates::TemplateStore store(*pool_, db_->url());
  store.Put(templates::ParseTemplate(
      "plan.renewal", {{"default_locale", "en"},
                       {"locales",
                        {{"en",
                          {{"title", "Your {{user.data.plan}} plan"},
                           {"body", "{{#user.data.org}}{{name}}{{/user.data.org}}"}}}}}}));
  NotifyService notify(*pool_, clock_, metrics_, &store);
  PutUser(1, {{"email", "a@example.uz"}, {"data", {{"plan", "pro"}, {"org", {{"name", "Olma"}}}}}});
  PutUser(2, {{"email", "b@example.uz"}});
  NotificationRequest first = Request(1);
  first.type = "plan.renewal";
  first.title.clear();
  first.body.clear();
  NotificationRequest second = first;
  second.user_id = 2;
  const auto one = inbox_->GetNotification(notify.Notify(first).id).notification;
  EXPECT_EQ(one.title, "Your pro plan");
  EXPECT_EQ(one.body, "Olma");
  EXPECT_EQ(inbox_->GetNotification(notify.Notify(second).id).notification.title, "Your  plan");
}

TEST_F(HubTest, PushSubscriptionSameEndpointKeepsItsId) {
  PutUser(1, {{"email", "a@example.uz"}});
  const PushSubscription sub = {
      .endpoint = "https://push.example/1", .p256dh = kP256dh, .auth = kAuth};
  const auto first = users_->AddPushSubscription(1, sub, kMove);
  const auto again = users_->AddPushSubscription(1, sub, kMove);
  EXPECT_TRUE(first.created);
  EXPECT_FALSE(again.created);
  EXPECT_EQ(first.id, again.id);
  EXPECT_THROW(users_->DeletePushSubscription(2, first.id), core::RequestError);
  users_->DeletePushSubscription(1, first.id);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.push_subscriptions"), 0);
}

// Every subscription is one more request per notification: a user (or a
// script acting as one) may not pile them up without bound.
TEST_F(HubTest, PushSubscriptionsPerUserAreCappedButTheSameEndpointIsAlwaysWelcome) {
  UserService::Options options;
  options.max_push_subscriptions = 3;
  users_ = std::make_unique<UserService>(*pool_, options);
  PutUser(1, {{"email", "a@example.uz"}});
  PutUser(2, {{"email", "b@example.uz"}});
  const auto sub = [](int n) {
    return PushSubscription{
        .endpoint = "https://push.example/" + std::to_string(n), .p256dh = kP256dh, .auth = kAuth};
  };
  for (int n = 1; n <= 3; ++n) EXPECT_TRUE(users_->AddPushSubscription(1, sub(n), kMove).created);
  try {
    (void)users_->AddPushSubscription(1, sub(4), kMove);
    ADD_FAILURE() << "a fourth subscription was accepted";
  } catch (const core::RequestError& e) {
    EXPECT_EQ(e.code(), core::ErrorCode::kConflict) << e.what();
    EXPECT_NE(std::string(e.what()).find("3"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(users_->AddPushSubscription(1, sub(2), kMove).created)
      << "a repeat is not a new one";
  EXPECT_TRUE(users_->AddPushSubscription(2, sub(4), kMove).created) << "the cap is per user";
  const auto third = users_->AddPushSubscription(1, sub(3), kMove);
  users_->DeletePushSubscription(1, third.id);
  EXPECT_TRUE(users_->AddPushSubscription(1, sub(5), kMove).created);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.push_subscriptions WHERE user_id = 1"), 3);
}

TEST_F(HubTest, NotificationShowsItsDeliveries) {
  PutUser(
      1, {{"email", "a@example.uz"}, {"phone", "+998901234567"}, {"preferences", {{"sms", true}}}});
  const auto id = notify_->Notify(Request(1)).id;
  const NotificationWithDeliveries found = inbox_->GetNotification(id);
  EXPECT_EQ(found.notification.title, "Muddat yaqin");
  ASSERT_EQ(found.deliveries.size(), 2u);
  EXPECT_EQ(found.deliveries[0].channel, "email");
  EXPECT_EQ(found.deliveries[0].status, "queued");
  const auto listed = inbox_->ListDeliveries({.channel = "sms", .limit = 10});
  ASSERT_EQ(listed.items.size(), 1u);
  EXPECT_EQ(listed.items[0].notification_id, id);
}

// A template stored through another process a moment ago, its NOTIFY not
// yet here: a request relying on it is not refused for want of a title.
TEST_F(HubTest, AnUntitledRequestFindsATemplateAnotherProcessJustStored) {
  templates::TemplateStore elsewhere(*pool_, db_->url());
  templates::TemplateStore here(*pool_, db_->url());
  here.Start();
  here.Stop();  // hears nothing from now on
  elsewhere.Put(templates::ParseTemplate(
      "task.due", {{"default_locale", "en"}, {"locales", {{"en", {{"title", "From template"}}}}}}));
  NotifyService notify(*pool_, clock_, metrics_, &here);
  NotificationRequest untitled = Request(1);
  untitled.title.clear();
  PutUser(1, {{"email", "a@example.uz"}});
  const auto id = notify.Notify(untitled).id;
  EXPECT_EQ(inbox_->GetNotification(id).notification.title, "From template");
}

}  // namespace
}  // namespace chopar::hub
