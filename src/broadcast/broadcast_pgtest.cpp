// Topics and broadcasts against a real PostgreSQL: topic CRUD and cursor
// listing, the fan-out (exactly once per recipient, preferences applied,
// leases, repeated batches absorbed, cancel) and the pace of its deliveries.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "broadcast/broadcast_service.hpp"
#include "broadcast/fan_out.hpp"
#include "broadcast/topic_service.hpp"
#include "core/clock.hpp"
#include "core/metrics.hpp"
#include "core/request_error.hpp"
#include "db/connection.hpp"
#include "hub/channel_choice.hpp"
#include "templates/template.hpp"
#include "templates/template_store.hpp"
#include "testing/one_template.hpp"
#include "testing/request_error.hpp"
#include "testing/test_database.hpp"

namespace chopar::broadcast {
namespace {

using nlohmann::json;

// `call` throws a core::RequestError with `code` (and `field`, when given).
template <typename Call>
void ExpectRefused(Call call, core::ErrorCode code, const std::string& field = "") {
  const core::RequestError e = testing::RequestErrorOf(call);
  EXPECT_EQ(e.code(), code) << e.what();
  if (!field.empty()) {
    EXPECT_EQ(e.field().value_or(""), field) << e.what();
  }
}

class BroadcastPgTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (IsSkipped()) return;
    topics_ = std::make_unique<TopicService>(*pool_);
    broadcasts_ = std::make_unique<BroadcastService>(*pool_);
  }

  // Users first..last with an email and a phone; every 5th has turned email
  // off for type release.note, every 7th has turned SMS on (it is off by
  // default). Written by one statement: the test is about the fan-out.
  void AddUsers(std::int64_t first, std::int64_t last) {
    db_->Scalar(
        "INSERT INTO chopar.users (id, email, phone, preferences) "
        "SELECT i, 'u' || i || '@example.uz', '+99890' || lpad(i::text, 7, '0'), "
        "       CASE WHEN i % 5 = 0 THEN '{\"types\": {\"release.note\": {\"email\": false}}}' "
        "            WHEN i % 7 = 0 THEN '{\"sms\": true}' ELSE '{}' END::jsonb "
        "FROM generate_series(" +
        std::to_string(first) + ", " + std::to_string(last) + ") i");
  }

  // Subscribes first..last to `topic` through the service, 10,000 a call.
  void Subscribe(const std::string& topic, std::int64_t first, std::int64_t last) {
    for (std::int64_t from = first; from <= last; from += 10000) {
      std::vector<std::int64_t> ids;
      for (std::int64_t id = from; id <= std::min(last, from + 9999); ++id) ids.push_back(id);
      topics_->AddSubscribers(topic, ids);
    }
  }

  // Users 1..`count` (AddUsers), all subscribed to topic "t".
  void TopicOfUsers(std::int64_t count) {
    AddUsers(1, count);
    topics_->Put("t", "T");
    Subscribe("t", 1, count);
  }

  static json Notification() {
    return {{"type", "release.note"},
            {"title", "Yangi versiya"},
            {"body", "2.0 chiqdi"},
            {"channels", {"email", "sms"}}};
  }

  std::int64_t Broadcast(json body) {
    const auto created = broadcasts_->Create(ParseBroadcastRequest(body));
    EXPECT_TRUE(created.created);
    return created.broadcast.id;
  }

  std::int64_t Count(const std::string& sql) const { return db_->Count(sql); }

  std::unique_ptr<TopicService> topics_;
  std::unique_ptr<BroadcastService> broadcasts_;
  core::SystemClock clock_;
  core::MetricsRegistry metrics_;
};

TEST_F(BroadcastPgTest, TopicCrudAndCursorListing) {
  AddUsers(1, 250);
  const Topic topic = topics_->Put("project-7", "Project 7 watchers");
  EXPECT_EQ(topic.key, "project-7");
  EXPECT_EQ(topic.name, "Project 7 watchers");
  EXPECT_EQ(topics_->Put("project-7", "Watchers").name, "Watchers");

  std::vector<std::int64_t> ids;
  for (std::int64_t id = 250; id >= 1; --id) ids.push_back(id);
  EXPECT_EQ(topics_->AddSubscribers("project-7", ids), 250);
  EXPECT_EQ(topics_->AddSubscribers("project-7", {1, 2, 2, 3}), 0);  // idempotent
  EXPECT_EQ(topics_->RemoveSubscribers("project-7", {10, 20, 999}), 2);
  EXPECT_EQ(topics_->RemoveSubscribers("project-7", {10}), 0);

  // Three pages of 100, 100 and 48, in user id order, no one twice.
  std::vector<std::int64_t> listed;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    const SubscriberPage page = topics_->ListSubscribers("project-7", 100, cursor);
    for (const Subscriber& item : page.items) listed.push_back(item.user_id);
    cursor = page.next_cursor;
    ++pages;
  } while (cursor);
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(listed.size(), 248u);
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  EXPECT_EQ(std::set<std::int64_t>(listed.begin(), listed.end()).size(), 248u);
  EXPECT_EQ(listed.front(), 1);
  EXPECT_EQ(listed.back(), 250);

  ExpectRefused(
      [&] {
        topics_->AddSubscribers("project-7", {5, 100000});
      },
      core::ErrorCode::kUserNotFound);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.topic_subscribers WHERE user_id = 5"), 1);
  ExpectRefused([&] { topics_->AddSubscribers("nope", {1}); }, core::ErrorCode::kNotFound);
  ExpectRefused([&] { topics_->ListSubscribers("nope", 10, std::nullopt); },
                core::ErrorCode::kNotFound);
  ExpectRefused([&] { topics_->ListSubscribers("project-7", 10, "%%%"); },
                core::ErrorCode::kInvalidField, "cursor");
  ExpectRefused([&] { topics_->Put("bad key", "x"); }, core::ErrorCode::kInvalidField, "key");

  topics_->Delete("project-7");
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.topic_subscribers"), 0);
  ExpectRefused([&] { topics_->Delete("project-7"); }, core::ErrorCode::kNotFound);
}

// A tenant's topic: its subscribers are the tenant's members, a key
// confined to another tenant finds nothing, and its broadcasts are that
// tenant's notifications (through NotifyIn: the tenant's defaults apply).
TEST_F(BroadcastPgTest, ATenantsTopicBroadcastsTheTenantsNotificationsToItsMembers) {
  AddUsers(1, 4);
  db_->Scalar(
      "INSERT INTO chopar.tenants (key, name, preferences) VALUES "
      "('acme', 'Acme', '{\"sms\": true}'), ('globex', 'Globex', '{}')");
  db_->Scalar(
      "INSERT INTO chopar.user_tenants (user_id, tenant) VALUES (1, 'acme'), (2, 'acme'), "
      "(3, 'globex')");
  TopicInput input;
  input.name = "Acme news";
  EXPECT_EQ(topics_->Put("acme-news", input, "acme").tenant, "acme") << "a confined key's own";
  EXPECT_EQ(topics_->Put("acme-news", "Acme news!").tenant, "acme") << "left out: kept";
  ExpectRefused([&] { (void)topics_->Put("acme-news", input, "globex"); },
                core::ErrorCode::kNotFound);
  ExpectRefused([&] { (void)topics_->TenantOf("acme-news", "globex"); },
                core::ErrorCode::kNotFound);
  ExpectRefused(
      [&] {
        topics_->AddSubscribers("acme-news", {1, 2, 3});
      },
      core::ErrorCode::kUserNotFound);  // 3 is not Acme's
  EXPECT_EQ(topics_->AddSubscribers("acme-news", {1, 2}, "acme"), 2);
  ExpectRefused([&] { topics_->AddSubscribers("acme-news", {1}, "globex"); },
                core::ErrorCode::kNotFound);
  ExpectRefused([&] { (void)topics_->ListSubscribers("acme-news", 10, std::nullopt, "globex"); },
                core::ErrorCode::kNotFound);
  ExpectRefused([&] { topics_->RemoveSubscribers("acme-news", {1}, "globex"); },
                core::ErrorCode::kNotFound);
  ExpectRefused([&] { topics_->Delete("acme-news", "globex"); }, core::ErrorCode::kNotFound);
  EXPECT_EQ(topics_->ListSubscribers("acme-news", 10, std::nullopt, "acme").items.size(), 2u);

  ExpectRefused(
      [&] {
        (void)broadcasts_->Create(
            ParseBroadcastRequest({{"audience", "all"}, {"notification", Notification()}}), "acme");
      },
      core::ErrorCode::kForbidden);
  ExpectRefused(
      [&] {
        (void)broadcasts_->Create(
            ParseBroadcastRequest({{"topic", "acme-news"}, {"notification", Notification()}}),
            "globex");
      },
      core::ErrorCode::kNotFound);
  json tenanted = Notification();
  tenanted["tenant"] = "acme";
  ExpectRefused(
      [&] {
        (void)ParseBroadcastRequest({{"topic", "acme-news"}, {"notification", tenanted}});
      },
      core::ErrorCode::kInvalidField);
  const auto created = broadcasts_->Create(
      ParseBroadcastRequest({{"topic", "acme-news"}, {"notification", Notification()}}), "acme");
  ASSERT_TRUE(created.created);
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 10});
  EXPECT_GE(fan_out.RunOnce(), 1);
  EXPECT_EQ(db_->Scalar("SELECT string_agg(user_id || ':' || tenant, ',' ORDER BY user_id) "
                        "FROM chopar.notifications WHERE type = 'release.note'"),
            "1:acme,2:acme");
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'sms'"), 2)
      << "the tenant's default turned SMS on for both";
}

TEST_F(BroadcastPgTest, ReachesEachOf25000SubscribersExactlyOnceWithTheirPreferences) {
  AddUsers(1, 26000);
  topics_->Put("everyone-but-some", "25,000 of them");
  Subscribe("everyone-but-some", 1001, 26000);
  const std::int64_t id =
      Broadcast({{"topic", "everyone-but-some"}, {"notification", Notification()}});
  EXPECT_EQ(broadcasts_->Get(id).status, "running");

  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 2000});
  EXPECT_EQ(fan_out.RunOnce(), 13);  // 12 full batches and the one that finds the end
  EXPECT_EQ(fan_out.RunOnce(), 0);

  const std::string key = "'broadcast:" + std::to_string(id) + "'";
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key = " + key), 25000);
  EXPECT_EQ(Count("SELECT count(DISTINCT user_id) FROM chopar.notifications WHERE dedup_key = " +
                  key + " AND user_id BETWEEN 1001 AND 26000"),
            25000);
  // Email to all but those who turned it off for the type; SMS only to
  // those who turned it on.
  const std::string deliveries =
      "SELECT count(*) FROM chopar.deliveries d JOIN chopar.notifications n ON n.id = "
      "d.notification_id WHERE n.dedup_key = " +
      key;
  EXPECT_EQ(Count(deliveries + " AND d.channel = 'email'"), 20000);
  EXPECT_EQ(Count(deliveries + " AND d.channel = 'email' AND d.user_id % 5 = 0"), 0);
  EXPECT_EQ(Count(deliveries + " AND d.channel = 'sms'"),
            Count("SELECT count(*) FROM generate_series(1001, 26000) i WHERE i % 5 <> 0 AND i % "
                  "7 = 0"));
  EXPECT_EQ(Count(deliveries + " AND d.channel NOT IN ('email', 'sms')"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM (SELECT notification_id, channel FROM chopar.deliveries "
                  "GROUP BY 1, 2 HAVING count(*) > 1) x"),
            0);

  const broadcast::Broadcast done = broadcasts_->Get(id);
  EXPECT_EQ(done.status, "done");
  EXPECT_EQ(done.recipients, 25000);
  EXPECT_EQ(done.created, 25000);
  EXPECT_TRUE(done.finished_at.has_value());
  EXPECT_EQ(metrics_.GetCounter("chopar_broadcast_recipients_total", "").Value(), 25000);
}

// The channels a set-based batch chooses in SQL are the ones
// hub::ChooseChannels chooses: every shape of preference (type, type and
// channel, category, category and channel, the channel's own, values that
// are not booleans) against every way a user can be reached, for an
// ordinary and a critical broadcast.
TEST_F(BroadcastPgTest, TheDatabasesChannelChoiceIsHubChooseChannels) {
  const std::vector<std::string> shapes = {
      R"({})",
      R"({"sms": true, "email": false})",
      R"({"push": "no", "telegram": false})",
      R"({"types": {"release.note": false}, "email": true})",
      R"({"types": {"release.note": {"sms": true, "email": false}}})",
      R"({"types": {"release.note": {"push": "yes"}}, "push": false})",
      R"({"types": {"other.type": false}})",
      R"({"types": [false], "categories": {"ops": true}, "sms": false})",
      R"({"categories": {"ops": false}, "types": {"release.note": {"email": true}}})",
      R"({"categories": {"ops": {"telegram": false, "sms": true}}})",
      R"({"categories": {"ops": 1, "news": false}, "telegram": false})",
  };
  std::vector<std::pair<std::string, hub::Addressable>> users;
  std::int64_t id = 0;
  for (const auto& shape : shapes) {
    for (int reach = 0; reach < 16; ++reach) {
      ++id;
      const hub::Addressable addressable{(reach & 1) != 0, (reach & 2) != 0, (reach & 4) != 0,
                                         (reach & 8) != 0};
      users.emplace_back(shape, addressable);
      const std::string user = std::to_string(id);
      db_->Scalar("INSERT INTO chopar.users (id, email, phone, preferences) VALUES (" + user +
                  ", " + (addressable[core::ChannelKind::kEmail] ? "'a@b.uz'" : "NULL") + ", " +
                  (addressable[core::ChannelKind::kSms] ? "'+998901234567'" : "NULL") + ", '" +
                  shape + "'::jsonb) RETURNING 1");
      // An inactive connection does not reach anyone: every user has one,
      // active only when Telegram is to reach them.
      db_->Scalar("INSERT INTO chopar.telegram_connections (user_id, chat_id, active) VALUES (" +
                  user + ", " + user + ", " +
                  (addressable[core::ChannelKind::kTelegram] ? "true" : "false") + ") RETURNING 1");
      if (addressable[core::ChannelKind::kPush]) {
        db_->Scalar(
            "INSERT INTO chopar.push_subscriptions (user_id, endpoint, p256dh, auth) VALUES (" +
            user + ", 'https://push.example/" + user +
            "', repeat('A', 87), repeat('B', 22)) "
            "RETURNING 1");
      }
    }
  }
  topics_->Put("t", "T");
  Subscribe("t", 1, id);

  for (const bool critical : {false, true}) {
    json notification = Notification();
    notification["channels"] = {"sms", "push", "telegram", "email"};
    notification["category"] = "ops";
    notification["critical"] = critical;
    const std::int64_t broadcast = Broadcast({{"topic", "t"}, {"notification", notification}});
    FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 50});
    EXPECT_EQ(fan_out.RunOnce(), 4);
    for (std::int64_t user = 1; user <= id; ++user) {
      const auto& [shape, addressable] = users[static_cast<std::size_t>(user - 1)];
      std::string expected;
      for (core::ChannelKind kind :
           hub::ChooseChannels(json::parse(shape), addressable,
                               {core::AllChannels().begin(), core::AllChannels().end()}, critical,
                               {"release.note", std::string_view("ops")})) {
        expected += std::string(core::ChannelName(kind)) + ",";
      }
      EXPECT_EQ(
          db_->Scalar("SELECT coalesce(string_agg(d.channel || ',', '' ORDER BY "
                      "array_position(ARRAY['email', 'telegram', 'push', 'sms'], "
                      "d.channel)), '') FROM chopar.deliveries d JOIN chopar.notifications "
                      "n ON n.id = d.notification_id WHERE n.dedup_key = 'broadcast:" +
                      std::to_string(broadcast) + "' AND n.user_id = " + std::to_string(user)),
          expected)
          << "user " << user << " preferences " << shape << " critical " << critical;
    }
  }
}

using testing::OneTemplate;

// A type with a template is rendered per recipient (hub::NotifyService::
// NotifyIn): each in their locale, with their own user id, and the
// template's category decides with the preferences (a type's preference,
// which AddUsers gives every 5th user, wins over it).
TEST_F(BroadcastPgTest, ATemplatedTypeIsRenderedForEachRecipient) {
  const OneTemplate lookup(templates::ParseTemplate(
      "release.note",
      {{"category", "news"},
       {"default_locale", "en"},
       {"locales",
        {{"en", {{"title", "Hello {{user.id}}"}}}, {"uz", {{"title", "Salom {{user.id}}"}}}}}}));
  TopicOfUsers(30);
  db_->Scalar("UPDATE chopar.users SET locale = 'uz' WHERE id % 2 = 0");
  db_->Scalar(
      "UPDATE chopar.users SET preferences = '{\"categories\": {\"news\": false}}' WHERE id % 3 "
      "= 0");
  // Without a title: the template gives it (a service that knows the
  // template accepts that).
  const auto created =
      BroadcastService(*pool_, &lookup)
          .Create(ParseBroadcastRequest(
              {{"topic", "t"},
               {"notification", {{"type", "release.note"}, {"channels", {"email"}}}}}));
  const std::int64_t id = created.broadcast.id;
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 20}, &lookup);
  EXPECT_EQ(fan_out.RunOnce(), 2);
  for (std::int64_t user = 1; user <= 30; ++user) {
    const std::string u = std::to_string(user);
    EXPECT_EQ(db_->Scalar("SELECT title FROM chopar.notifications WHERE user_id = " + u),
              (user % 2 == 0 ? "Salom " : "Hello ") + u);
    EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries WHERE user_id = " + u),
              user % 3 == 0 || user % 5 == 0 ? 0 : 1)
        << "user " << u;
  }
  EXPECT_EQ(broadcasts_->Get(id).created, 30);
}

// A broadcast's deliveries are bulk — claimed after the ordinary ones that
// are due (delivery/queries/claim_candidates.sql) — whether its batches are
// one statement or rendered per recipient, paced or not.
TEST_F(BroadcastPgTest, ABroadcastsDeliveriesAreBulkWhicheverPathMadeThem) {
  const OneTemplate lookup(templates::ParseTemplate(
      "release.card",
      {{"default_locale", "en"}, {"locales", {{"en", {{"title", "Hello {{user.id}}"}}}}}}));
  TopicOfUsers(40);
  Broadcast({{"topic", "t"}, {"notification", Notification()}});
  FanOut paced(*pool_, clock_, metrics_, FanOutSettings{.batch = 20, .deliveries_per_second = 100},
               &lookup);
  EXPECT_EQ(paced.RunOnce(), 3);
  const std::int64_t set_based = Count("SELECT count(*) FROM chopar.deliveries");
  BroadcastService(*pool_, &lookup)
      .Create(ParseBroadcastRequest(
          {{"topic", "t"}, {"notification", {{"type", "release.card"}, {"channels", {"email"}}}}}));
  FanOut unpaced(*pool_, clock_, metrics_, FanOutSettings{.batch = 20, .deliveries_per_second = 0},
                 &lookup);
  EXPECT_EQ(unpaced.RunOnce(), 3);

  EXPECT_GT(set_based, 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries"), set_based + 40);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries WHERE NOT bulk"), 0);
}

TEST_F(BroadcastPgTest, AudienceAllReachesEveryUser) {
  AddUsers(1, 1234);
  const std::int64_t id = Broadcast({{"audience", "all"}, {"notification", Notification()}});
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 500});
  EXPECT_EQ(fan_out.RunOnce(), 3);
  EXPECT_EQ(Count("SELECT count(DISTINCT user_id) FROM chopar.notifications WHERE dedup_key = "
                  "'broadcast:" +
                  std::to_string(id) + "'"),
            1234);
  EXPECT_EQ(broadcasts_->Get(id).status, "done");
}

// "where" keeps the users whose data contains it, on each path (one
// statement, or rendered per recipient) and for both audiences; the users
// outside it get nothing, and the walk still reaches the end.
TEST_F(BroadcastPgTest, WhereReachesOnlyTheUsersWhoseDataContainsIt) {
  TopicOfUsers(300);
  db_->Scalar(
      "UPDATE chopar.users SET data = CASE WHEN id % 3 = 0 THEN '{\"plan\": \"pro\", "
      "\"seats\": 5}' WHEN id % 3 = 1 THEN '{\"plan\": \"free\"}' ELSE '{}' END::jsonb");
  const OneTemplate lookup(templates::ParseTemplate(
      "plan.news",
      {{"default_locale", "en"}, {"locales", {{"en", {{"title", "For {{user.data.plan}}"}}}}}}));
  const json where = {{"plan", "pro"}};
  const std::int64_t by_topic =
      Broadcast({{"topic", "t"}, {"where", where}, {"notification", Notification()}});
  const std::int64_t to_all =
      Broadcast({{"audience", "all"}, {"where", where}, {"notification", Notification()}});
  BroadcastService templated(*pool_, &lookup);
  const std::int64_t rendered =
      templated
          .Create(ParseBroadcastRequest(
              {{"audience", "all"},
               {"where", where},
               {"notification", {{"type", "plan.news"}, {"channels", {"email"}}}}}))
          .broadcast.id;
  EXPECT_EQ(broadcasts_->Get(to_all).where, where);
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 40}, &lookup);
  fan_out.RunOnce();
  for (const std::int64_t id : {by_topic, to_all, rendered}) {
    const std::string key = "'broadcast:" + std::to_string(id) + "'";
    EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE dedup_key = " + key), 100);
    EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications WHERE user_id % 3 <> 0 AND "
                    "dedup_key = " +
                    key),
              0);
    EXPECT_EQ(broadcasts_->Get(id).status, "done");
    EXPECT_EQ(broadcasts_->Get(id).recipients, 100);
  }
  EXPECT_EQ(db_->Scalar("SELECT DISTINCT title FROM chopar.notifications WHERE dedup_key = "
                        "'broadcast:" +
                        std::to_string(rendered) + "'"),
            "For pro");
}

TEST_F(BroadcastPgTest, TheSameDedupKeyIsTheSameBroadcast) {
  AddUsers(1, 10);
  topics_->Put("t", "T");
  const json body = {{"topic", "t"}, {"notification", Notification()}, {"dedup_key", "rel-1"}};
  const auto first = broadcasts_->Create(ParseBroadcastRequest(body));
  const auto again = broadcasts_->Create(ParseBroadcastRequest(body));
  EXPECT_TRUE(first.created);
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.broadcast.id, first.broadcast.id);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.broadcasts"), 1);

  ExpectRefused(
      [&] {
        broadcasts_->Create(
            ParseBroadcastRequest({{"topic", "missing"}, {"notification", Notification()}}));
      },
      core::ErrorCode::kNotFound);
}

TEST_F(BroadcastPgTest, RequestsAreValidated) {
  const auto expect_field = [](const json& body, const std::string& field) {
    ExpectRefused([&] { (void)ParseBroadcastRequest(body); }, core::ErrorCode::kInvalidField,
                  field);
  };
  expect_field({{"notification", Notification()}}, "topic");
  expect_field({{"topic", "t"}, {"audience", "all"}, {"notification", Notification()}}, "topic");
  expect_field({{"audience", "some"}, {"notification", Notification()}}, "audience");
  expect_field({{"audience", "all"}}, "notification");
  expect_field({{"audience", "all"}, {"where", "pro"}, {"notification", Notification()}}, "where");
  expect_field({{"audience", "all"},
                {"where", {{"plan", std::string(5000, 'x')}}},
                {"notification", Notification()}},
               "where");
  json with_user = Notification();
  with_user["user_id"] = 3;
  expect_field({{"audience", "all"}, {"notification", with_user}}, "notification.user_id");
  json bad_type = Notification();
  bad_type["type"] = "Bad Type";
  expect_field({{"audience", "all"}, {"notification", bad_type}}, "notification.type");
  json untitled = Notification();
  untitled.erase("title");
  ExpectRefused(
      [&] {
        broadcasts_->Create(
            ParseBroadcastRequest({{"audience", "all"}, {"notification", untitled}}));
      },
      core::ErrorCode::kInvalidField, "notification.title");
}

TEST_F(BroadcastPgTest, CancelStopsTheFanOutAndEndsItsQueuedDeliveriesInBatches) {
  TopicOfUsers(1000);  // users 1..1000; email for 4 in 5, SMS for 1 in 7 of the rest
  const std::int64_t id = Broadcast({{"topic", "t"}, {"notification", Notification()}});
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 100});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(fan_out.RunBatch().has_value());
  // Users 1..300 have deliveries; one of them is already sent and one has
  // been handed to its provider: those are left as they are. One a worker
  // has claimed but not started is canceled (its begin_sends finds it gone).
  const std::string deliveries = "SELECT count(*) FROM chopar.deliveries";
  const std::int64_t created = Count(deliveries);
  ASSERT_GT(created, 200);
  db_->Scalar(
      "UPDATE chopar.deliveries SET status = 'sent', sent_at = now(), claimed_at = now() "
      "WHERE user_id = 1 RETURNING 1");
  db_->Scalar(
      "UPDATE chopar.deliveries SET status = 'sending', lease_until = now() + interval '1 minute', "
      "claim_token = gen_random_uuid(), claimed_at = now(), send_started_at = now() "
      "WHERE user_id = 2 RETURNING 1");
  db_->Scalar(
      "UPDATE chopar.deliveries SET status = 'sending', lease_until = now() + interval '1 minute', "
      "claim_token = gen_random_uuid(), claimed_at = now() WHERE user_id = 3 RETURNING 1");
  const std::int64_t left = Count(deliveries + " WHERE user_id IN (1, 2)");
  const std::int64_t in_first_batch = Count(deliveries + " WHERE user_id > 200");

  // The cancel runs the walk's first batch itself (users 300 down to 201).
  const broadcast::Broadcast canceled =
      BroadcastService(*pool_, nullptr, FanOutSettings{.batch = 100}).Cancel(id);
  EXPECT_EQ(canceled.status, "canceled");
  EXPECT_EQ(canceled.recipients, 300);
  EXPECT_EQ(canceled.stopped.deliveries, in_first_batch);
  EXPECT_EQ(canceled.stopping, true);

  // The fan-out loops walk the rest, 100 a batch from user 200 down: two
  // full batches and the one that finds none left. No notification is
  // created.
  std::vector<std::int64_t> walked;
  while (const auto batch = fan_out.RunBatch()) {
    EXPECT_EQ(batch->broadcast_id, id);
    walked.push_back(batch->recipients);
  }
  EXPECT_EQ(walked, (std::vector<std::int64_t>{100, 100, 0}));
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), 300);
  EXPECT_EQ(Count(deliveries), created);
  EXPECT_EQ(Count(deliveries + " WHERE status = 'queued'"), 0);
  EXPECT_EQ(Count(deliveries + " WHERE status = 'sent'"), Count(deliveries + " WHERE user_id = 1"));
  EXPECT_EQ(Count(deliveries + " WHERE status = 'sending' AND user_id = 2"),
            Count(deliveries + " WHERE user_id = 2"));
  EXPECT_EQ(Count(deliveries +
                  " WHERE user_id = 3 AND (status <> 'canceled' OR claim_token IS NOT NULL)"),
            0);
  EXPECT_EQ(Count(deliveries + " WHERE status = 'canceled' AND last_error = 'canceled'"),
            created - left);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.broadcasts WHERE cancel_cursor IS NOT NULL OR "
                  "lease_until IS NOT NULL"),
            0);
  EXPECT_EQ(fan_out.RunOnce(), 0);
  const broadcast::Broadcast after = broadcasts_->Get(id);
  EXPECT_EQ(after.stopped, (StoppedCounts{created - left, 0, 0}));
  EXPECT_EQ(after.stopping, false);

  // Canceling a canceled broadcast changes nothing.
  EXPECT_EQ(broadcasts_->Cancel(id), after);
  EXPECT_FALSE(fan_out.RunBatch().has_value());
  ExpectRefused([&] { broadcasts_->Cancel(id + 1); }, core::ErrorCode::kNotFound);
}

TEST_F(BroadcastPgTest, CancelBeforeAnyBatchLeavesNothingToCancel) {
  TopicOfUsers(50);
  const std::int64_t id = Broadcast({{"topic", "t"}, {"notification", Notification()}});
  const broadcast::Broadcast canceled = broadcasts_->Cancel(id);
  EXPECT_EQ(canceled.status, "canceled");
  EXPECT_EQ(canceled.stopped, (StoppedCounts{0, 0, 0}));
  EXPECT_EQ(canceled.stopping, false);
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 100});
  EXPECT_EQ(fan_out.RunOnce(), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), 0);
}

// A broadcast with delay_seconds is done once its recipients' delayed
// notifications are stored; canceling it deletes them (and frees the dedup
// keys they reserved): nothing is released later.
TEST_F(BroadcastPgTest, CancelOfADoneBroadcastDeletesItsDelayedNotifications) {
  TopicOfUsers(3);
  json notification = Notification();
  notification["delay_seconds"] = 15;
  const std::int64_t id = Broadcast({{"topic", "t"}, {"notification", notification}});
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 100});
  EXPECT_EQ(fan_out.RunOnce(), 1);
  ASSERT_EQ(broadcasts_->Get(id).status, "done");
  const std::string key = "'broadcast:" + std::to_string(id) + "'";
  ASSERT_EQ(Count("SELECT count(*) FROM chopar.delayed_notifications WHERE dedup_key = " + key), 3);

  const broadcast::Broadcast canceled = broadcasts_->Cancel(id);
  EXPECT_EQ(canceled.status, "canceled");
  EXPECT_EQ(canceled.stopped, (StoppedCounts{0, 3, 0}));
  EXPECT_EQ(canceled.stopping, false);
  EXPECT_TRUE(canceled.finished_at.has_value());
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.delayed_notifications"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notification_dedup WHERE dedup_key = " + key), 0);
  EXPECT_EQ(fan_out.RunOnce(), 0);
  EXPECT_EQ(broadcasts_->Cancel(id), canceled);  // idempotent
}

// A done broadcast whose paced deliveries are still queued (due later):
// canceling it cancels them, whichever batch made them.
TEST_F(BroadcastPgTest, CancelOfADoneBroadcastCancelsItsPacedQueuedDeliveries) {
  TopicOfUsers(300);
  const std::int64_t id = Broadcast({{"topic", "t"}, {"notification", Notification()}});
  FanOut fan_out(*pool_, clock_, metrics_,
                 FanOutSettings{.batch = 100, .deliveries_per_second = 1});
  EXPECT_EQ(fan_out.RunOnce(), 4);
  ASSERT_EQ(broadcasts_->Get(id).status, "done");
  const std::string deliveries = "SELECT count(*) FROM chopar.deliveries";
  const std::int64_t created = Count(deliveries);
  ASSERT_GT(Count(deliveries + " WHERE next_attempt_at > now() + interval '1 minute'"), 0)
      << "the deliveries are not paced: nothing tested";
  db_->Scalar(
      "UPDATE chopar.deliveries SET status = 'sent', sent_at = now(), claimed_at = now() "
      "WHERE user_id = 1 RETURNING 1");
  const std::int64_t sent = Count(deliveries + " WHERE status = 'sent'");

  const broadcast::Broadcast canceled = broadcasts_->Cancel(id);
  EXPECT_EQ(canceled.status, "canceled");
  EXPECT_EQ(canceled.stopped.deliveries, created - sent);
  EXPECT_EQ(Count(deliveries + " WHERE status = 'queued'"), 0);
  EXPECT_EQ(Count(deliveries + " WHERE status = 'canceled'"), created - sent);
  EXPECT_EQ(Count(deliveries + " WHERE status = 'sent'"), sent);
}

// A templated type with a digest: the broadcast's notifications wait in
// their recipients' open digest windows; canceling takes them out, and a
// window left empty sends nothing.
TEST_F(BroadcastPgTest, CancelTakesItsNotificationsOutOfOpenDigestWindows) {
  const OneTemplate lookup(templates::ParseTemplate(
      "release.digest", {{"default_locale", "en"},
                         {"locales", {{"en", {{"title", "Hello {{user.id}}"}}}}},
                         {"digest", {{"window_seconds", 600}}}}));
  TopicOfUsers(4);
  const auto created =
      BroadcastService(*pool_, &lookup)
          .Create(ParseBroadcastRequest(
              {{"topic", "t"},
               {"notification", {{"type", "release.digest"}, {"channels", {"email"}}}}}));
  const std::int64_t id = created.broadcast.id;
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 100}, &lookup);
  EXPECT_EQ(fan_out.RunOnce(), 1);
  ASSERT_EQ(Count("SELECT count(*) FROM chopar.digest_items"), 4);

  const broadcast::Broadcast canceled = BroadcastService(*pool_, &lookup).Cancel(id);
  EXPECT_EQ(canceled.stopped, (StoppedCounts{0, 0, 4}));
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.digest_items"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.digests WHERE item_count <> 0"), 0);
}

TEST_F(BroadcastPgTest, ALeasedBroadcastIsLeftToItsHolderUntilTheLeaseRunsOut) {
  TopicOfUsers(1000);
  const std::int64_t id = Broadcast({{"topic", "t"}, {"notification", Notification()}});
  FanOut first(*pool_, clock_, metrics_, FanOutSettings{.batch = 300});
  FanOut second(*pool_, clock_, metrics_, FanOutSettings{.batch = 300});
  ASSERT_TRUE(first.RunBatch().has_value());
  EXPECT_FALSE(second.RunBatch().has_value());  // leased to `first`

  // `first` died after its batch: its lease runs out, `second` continues
  // from the cursor.
  db_->Scalar("UPDATE chopar.broadcasts SET lease_until = now() - interval '1 second'");
  EXPECT_EQ(second.RunOnce(), 3);
  EXPECT_EQ(broadcasts_->Get(id).status, "done");
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), 1000);
  EXPECT_EQ(Count("SELECT count(DISTINCT user_id) FROM chopar.notifications"), 1000);
}

TEST_F(BroadcastPgTest, ARepeatedBatchIsAbsorbedByTheDedupKey) {
  TopicOfUsers(1000);
  const std::int64_t id = Broadcast({{"topic", "t"}, {"notification", Notification()}});
  FanOut fan_out(*pool_, clock_, metrics_, FanOutSettings{.batch = 400});
  ASSERT_TRUE(fan_out.RunBatch().has_value());
  // As if the cursor had not moved: the batch is walked again.
  db_->Scalar("UPDATE chopar.broadcasts SET cursor = NULL, recipients = 0");
  const auto repeated = fan_out.RunBatch();
  ASSERT_TRUE(repeated.has_value());
  EXPECT_EQ(repeated->recipients, 400);
  EXPECT_EQ(repeated->created, 0);
  EXPECT_EQ(fan_out.RunOnce(), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), 1000);
  EXPECT_EQ(broadcasts_->Get(id).created, 1000);
}

TEST_F(BroadcastPgTest, TwoProcessesFanOutOneBroadcastOnce) {
  TopicOfUsers(6000);
  Broadcast({{"topic", "t"}, {"notification", Notification()}});
  // Short leases: the two alternate as each one's lease runs out.
  const FanOutSettings settings{.batch = 250, .lease = std::chrono::milliseconds(1)};
  FanOut a(*pool_, clock_, metrics_, settings);
  FanOut b(*pool_, clock_, metrics_, settings);
  int batches_a = 0, batches_b = 0;
  std::thread ta([&] {
    for (int i = 0; i < 200; ++i) batches_a += a.RunOnce();
  });
  std::thread tb([&] {
    for (int i = 0; i < 200; ++i) batches_b += b.RunOnce();
  });
  ta.join();
  tb.join();
  EXPECT_EQ(batches_a + batches_b, 25);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.notifications"), 6000);
  EXPECT_EQ(Count("SELECT count(DISTINCT user_id) FROM chopar.notifications"), 6000);
  EXPECT_EQ(Count("SELECT sum(recipients) FROM chopar.broadcasts"), 6000);
}

TEST_F(BroadcastPgTest, EachBatchsDeliveriesFallDueAfterThePreviousBatchs) {
  TopicOfUsers(600);
  Broadcast({
      {"topic", "t"},
      {"notification", {{"type", "release.note"}, {"title", "x"}, {"channels", {"sms"}}}},
  });
  db_->Scalar("UPDATE chopar.users SET preferences = '{\"sms\": true}'");
  // 200 SMS deliveries a batch at 100 a second: each batch 2 s after the last.
  FanOut fan_out(*pool_, clock_, metrics_,
                 FanOutSettings{.batch = 200, .deliveries_per_second = 100});
  EXPECT_EQ(fan_out.RunOnce(), 4);
  // Batch 1 due at once, batch 2 two seconds later, batch 3 (users
  // 401-600) four.
  const double third = std::stod(
      db_->Scalar("SELECT extract(epoch FROM min(next_attempt_at) FILTER (WHERE user_id > 400) - "
                  "min(created_at))::text FROM chopar.deliveries"));
  EXPECT_NEAR(third, 4.0, 1.0);
  EXPECT_EQ(Count("SELECT count(*) FROM chopar.deliveries"), 600);
}

// The delivery workers are woken (NOTIFY chopar_deliveries) by a batch whose
// deliveries are due at once, not by one whose deliveries fall due after the
// previous batch's, still queued: those would only make every worker run an
// empty claim. Without a pace every batch is due at once and wakes them.
TEST_F(BroadcastPgTest, OnlyABatchDueAtOnceWakesTheDeliveryWorkers) {
  TopicOfUsers(400);
  db_->Scalar("UPDATE chopar.users SET preferences = '{\"sms\": true}'");
  const json sms_only = {{"type", "release.note"}, {"title", "x"}, {"channels", {"sms"}}};
  db::Connection listener = db_->Connect();
  listener.Listen("chopar_deliveries");
  db::Connection other = db_->Connect();
  // The wake-ups the batches of `fan_out` queued: a marker NOTIFYed after
  // them arrives after every one of them.
  const auto wakeups_of = [&](FanOut& fan_out) {
    std::vector<bool> woken;
    while (fan_out.RunBatch()) {
      other.ExecScript("NOTIFY chopar_deliveries, 'marker'");
      int count = 0;
      bool marked = false;
      for (int waits = 0; !marked && waits < 6; ++waits) {
        for (const db::Notification& n : listener.WaitForNotifications(std::chrono::seconds(5))) {
          if (n.payload == "marker")
            marked = true;
          else
            ++count;
        }
      }
      EXPECT_TRUE(marked) << "the marker NOTIFY never arrived";
      woken.push_back(count > 0);
    }
    return woken;
  };

  Broadcast({{"topic", "t"}, {"notification", sms_only}});
  // 200 SMS deliveries a batch at 100 a second: batch 2 is due 2 s after batch 1.
  FanOut paced(*pool_, clock_, metrics_,
               FanOutSettings{.batch = 200, .deliveries_per_second = 100});
  EXPECT_EQ(wakeups_of(paced), (std::vector<bool>{true, false, false}));

  Broadcast({{"topic", "t"}, {"notification", sms_only}});
  FanOut unpaced(*pool_, clock_, metrics_,
                 FanOutSettings{.batch = 200, .deliveries_per_second = 0});
  EXPECT_EQ(wakeups_of(unpaced), (std::vector<bool>{true, true, false}));
}

}  // namespace
}  // namespace chopar::broadcast
