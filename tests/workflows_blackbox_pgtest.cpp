// Black-box, workflows (docs/api.md "Workflows"): the built `chopar serve`
// with the sink providers on a real PostgreSQL. A digest of 4 + 1
// notifications under two keys sends exactly one email per key with the
// right count and items — also when the server is killed (-9) during the
// window and restarted, and with two servers side by side. A throttled type
// sends 2 of 5 and skips the rest as `throttled`, also with several delivery loops
// claiming at once; escalate-if-unread cancels the held email of a
// notification read in time (`read`) and sends the other's; a template's
// workflow settings are refused with the field named. Batches filling one
// window at once from several clients put each notification in exactly one
// digest; delayed notifications are released exactly once when the server
// is killed while it releases them.

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "workflows-key";

class WorkflowsBlackBox : public testing::DatabaseBlackBox {
 protected:
  // Starts `chopar serve` number `index` (its own port and log) on the
  // test's database, every channel to the sink.
  void StartServer(std::size_t index = 0, std::map<std::string, std::string> env = {}) {
    env["CHOPAR_SERVER_INBOX_SECRET"] = "inbox-secret-for-tests";
    if (servers_.size() <= index) servers_.resize(index + 1);
    if (apis_.size() <= index) apis_.resize(index + 1);
    const int port = FreeLoopbackPort();
    servers_[index] = Start("serve", port, DatabaseEnv(kApiKey, std::move(env)),
                            "serve" + std::to_string(index) + ".log");
    if (ports_.size() <= index) ports_.resize(index + 1);
    ports_[index] = port;
    apis_[index] = std::make_unique<Api>(port, kApiKey);
    ASSERT_TRUE(WaitUntil([&] { return apis_[index]->Healthy(); }, 60s))
        << servers_[index]->Output();
  }
  Api& api(std::size_t index = 0) { return *apis_.at(index); }
  int port(std::size_t index = 0) { return ports_.at(index); }
  std::string Output(std::size_t index = 0) { return servers_.at(index)->Output(); }

  void MakeUser(std::int64_t id) {
    const auto put = api().Call("PUT", "/v1/users/" + std::to_string(id),
                                {{"email", "user" + std::to_string(id) + "@example.uz"}});
    ASSERT_EQ(put.status, 200) << put.body;
  }
  void PutTemplate(const std::string& type, const json& settings) {
    json body = {{"default_locale", "en"},
                 {"locales", {{"en", {{"title", "{{title}}"}, {"body", "{{body}}"}}}}}};
    body.update(settings);
    const auto put = api().Call("PUT", "/v1/templates/" + type, body);
    ASSERT_EQ(put.status, 200) << put.body;
  }
  std::int64_t Notify(const json& body, std::size_t server = 0) {
    const auto created = api(server).Call("POST", "/v1/notifications", body);
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body).value("id", std::int64_t{0});
  }
  json Get(const std::string& path) { return ParseJsonOrDiscarded(api().Call("GET", path).body); }

  // The notification's deliveries once all reached a final status.
  json Settled(std::int64_t id, std::chrono::seconds timeout = 30s) {
    json deliveries;
    const bool done = WaitUntil(
        [&] {
          deliveries = Get("/v1/notifications/" + std::to_string(id)).value("deliveries", json());
          if (!deliveries.is_array() || deliveries.empty()) return false;
          for (const json& d : deliveries) {
            if (d["status"] == "queued" || d["status"] == "sending") return false;
          }
          return true;
        },
        timeout);
    EXPECT_TRUE(done) << id << ": " << deliveries.dump() << "\n" << Output();
    return deliveries;
  }

  std::vector<std::unique_ptr<ChildProcess>> servers_;
  std::vector<std::unique_ptr<Api>> apis_;
  std::vector<int> ports_;
};

// Comments on a project: in-app each on its own, by email one digest per
// project.
const json kDigestTemplate = {
    {"default_locale", "en"},
    {"locales",
     {{"en",
       {{"title", "{{author}} commented on {{project}}"},
        {"email",
         {{"subject", "{{digest.count}} new comments on {{project}}"},
          {"text", "{{#digest.items}}{{data.author}}: {{data.text}}\n{{/digest.items}}"}}}}}}}};

class DigestBlackBox : public WorkflowsBlackBox {
 protected:
  // Notifies user 1 of `count` comments on `project` numbered from `first`,
  // through server `server`.
  void Comments(const std::string& project, int count, std::size_t server = 0, int first = 1) {
    for (int i = first; i < first + count; ++i) {
      Notify({{"user_id", 1},
              {"type", "project.comment"},
              {"channels", {"email"}},
              {"data",
               {{"project", project},
                {"author", "author" + std::to_string(i)},
                {"text", project + " comment " + std::to_string(i)}}}},
             server);
    }
  }

  void PutDigestTemplate(int window_seconds) {
    json body = kDigestTemplate;
    body["digest"] = {{"window_seconds", window_seconds}, {"key", "{{project}}"}};
    const auto put = api().Call("PUT", "/v1/templates/project.comment", body);
    ASSERT_EQ(put.status, 200) << put.body;
  }

  // The emails the sink recorded, once `count` are there and no more come
  // within a second after.
  json Emails(std::size_t count, std::size_t server = 0) {
    json items;
    EXPECT_TRUE(WaitUntil(
        [&] {
          items = ParseJsonOrDiscarded(
              api(server).Call("GET", "/v1/sink/messages?channel=email").body)["items"];
          return items.is_array() && items.size() >= count;
        },
        60s))
        << items.dump() << "\n"
        << Output(server);
    std::this_thread::sleep_for(1s);  // a late duplicate would show now
    return ParseJsonOrDiscarded(
        api(server).Call("GET", "/v1/sink/messages?channel=email").body)["items"];
  }

  // The email's text starts with `items` (the unsubscribe footer follows).
  static void ExpectItems(const json& email, const std::string& items) {
    const std::string body = email["body"];
    EXPECT_EQ(body.substr(0, items.size()), items) << body;
  }

  // One email per project, with the count and every item in order.
  static void ExpectOnePerKey(const json& emails) {
    ASSERT_EQ(emails.size(), 2u) << emails.dump();
    std::map<std::string, json> by_title;
    for (const json& e : emails) by_title[e["title"].get<std::string>()] = e;
    ASSERT_TRUE(by_title.contains("4 new comments on alpha")) << emails.dump();
    ASSERT_TRUE(by_title.contains("1 new comments on beta")) << emails.dump();
    ExpectItems(by_title["4 new comments on alpha"],
                "author1: alpha comment 1\nauthor2: alpha comment 2\nauthor3: alpha comment "
                "3\nauthor4: alpha comment 4\n");
    ExpectItems(by_title["1 new comments on beta"], "author1: beta comment 1\n");
  }
};

TEST_F(DigestBlackBox, FourAndOneUnderTwoKeysMakeOneEmailPerKey) {
  StartServer();
  PutDigestTemplate(5);
  MakeUser(1);
  Comments("alpha", 4);
  Comments("beta", 1);
  // In-app at once, each on its own; nothing sent before the window closes.
  EXPECT_EQ(Get("/v1/users/1/notifications")["items"].size(), 5u);
  EXPECT_EQ(Get("/v1/users/1/notifications")["items"][0]["title"], "author1 commented on beta");
  EXPECT_EQ(Get("/v1/sink/messages?channel=email")["items"].size(), 0u);
  ExpectOnePerKey(Emails(2));
}

TEST_F(DigestBlackBox, KilledDuringTheWindowTheRestartedServerSendsEachDigestOnce) {
  StartServer();
  PutDigestTemplate(8);
  MakeUser(1);
  Comments("alpha", 4);
  Comments("beta", 1);
  servers_[0]->Signal(SIGKILL);
  servers_[0]->Wait(10s);
  StartServer();  // a new process, while the windows are still open
  ExpectOnePerKey(Emails(2));
}

TEST_F(DigestBlackBox, TwoServersSideBySideSendEachDigestOnce) {
  StartServer(0);
  StartServer(1);
  PutDigestTemplate(5);
  MakeUser(1);
  // The windows' items come through both servers; both close windows.
  Comments("alpha", 2, 0);
  Comments("alpha", 2, 1, 3);
  Comments("beta", 1, 1);
  ExpectOnePerKey(Emails(2));
}

// Batches posted at the same moment by several clients fill one user's
// window again and again: each decides under the window's lock at the time
// it holds the lock, so every request succeeds (a race on the server is
// never the caller's 400) and every notification is in exactly one digest,
// none over max_items, each sent once.
TEST_F(DigestBlackBox, ConcurrentBatchesFillingOneWindowDigestEachNotificationOnce) {
  StartServer(0, {{"CHOPAR_LIMITS_HOURLY_EMAIL", "1000000"}});
  json settings = kDigestTemplate;
  settings["digest"] = {{"window_seconds", 2}, {"key", "{{project}}"}, {"max_items", 5}};
  ASSERT_EQ(api().Call("PUT", "/v1/templates/project.comment", settings).status, 200);
  MakeUser(1);
  constexpr int kClients = 4, kRequests = 10, kPerRequest = 7;
  std::vector<std::vector<std::string>> failures(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      Api client(port(), kApiKey);  // one connection per client
      for (int r = 0; r < kRequests; ++r) {
        json batch = json::array();
        for (int i = 0; i < kPerRequest; ++i) {
          const std::string text =
              std::to_string(c) + "-" + std::to_string(r) + "-" + std::to_string(i);
          batch.push_back({{"user_id", 1},
                           {"type", "project.comment"},
                           {"channels", {"email"}},
                           {"data", {{"project", "alpha"}, {"author", "a"}, {"text", text}}}});
        }
        const auto posted =
            client.Call("POST", "/v1/notifications/batch", {{"notifications", batch}});
        const json results = ParseJsonOrDiscarded(posted.body).value("results", json());
        if (posted.status != 200 || !results.is_array() || results.size() != kPerRequest) {
          failures[c].push_back(std::to_string(posted.status) + " " + posted.body);
          continue;
        }
        for (const json& result : results) {
          if (!result.value("created", false)) failures[c].push_back(result.dump());
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  for (const auto& failed : failures) EXPECT_TRUE(failed.empty()) << failed.front();

  constexpr int kTotal = kClients * kRequests * kPerRequest;
  EXPECT_TRUE(WaitUntil(
      [&] {
        return db_->Count(
                   "SELECT (SELECT count(*) FROM chopar.digests WHERE status = 'open') + "
                   "(SELECT count(*) FROM chopar.deliveries WHERE status IN ('queued', "
                   "'sending'))") == 0;
      },
      60s))
      << Output();
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), kTotal);
  EXPECT_EQ(db_->Count("SELECT count(DISTINCT notification_id) FROM chopar.digest_items"), kTotal);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.digest_items"), kTotal);
  EXPECT_EQ(db_->Count("SELECT coalesce(sum(item_count), 0) FROM chopar.digests"), kTotal);
  EXPECT_EQ(
      db_->Count("SELECT count(*) FROM chopar.digests WHERE status <> 'closed' OR item_count > 5 "
                 "OR item_count <> (SELECT count(*) FROM chopar.digest_items i "
                 "WHERE i.digest_id = digests.id)"),
      0);
  // One email per window, every one sent.
  const std::int64_t windows = db_->Count("SELECT count(*) FROM chopar.digests");
  EXPECT_GE(windows, kTotal / 5);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE status = 'sent'"), windows);
  EXPECT_EQ(db_->Count("SELECT count(DISTINCT digest_id) FROM chopar.deliveries"), windows);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), windows);
}

TEST_F(DigestBlackBox, CanceledItemsLeaveTheWindowAndAnEmptyWindowSendsNothing) {
  StartServer();
  PutDigestTemplate(6);
  MakeUser(1);
  for (const std::string project : {"alpha", "beta"}) {
    Notify({{"user_id", 1},
            {"type", "project.comment"},
            {"channels", {"email"}},
            {"cancellation_key", "comment:" + project},
            {"data", {{"project", project}, {"author", "a"}, {"text", "gone"}}}});
  }
  Comments("alpha", 1);
  const auto canceled =
      api().Call("POST", "/v1/notifications/cancel", {{"cancellation_key", "comment:beta"}});
  ASSERT_EQ(canceled.status, 200) << canceled.body;
  ASSERT_EQ(api()
                .Call("POST", "/v1/notifications/cancel", {{"cancellation_key", "comment:alpha"}})
                .status,
            200);
  const json emails = Emails(1);
  ASSERT_EQ(emails.size(), 1u) << emails.dump();
  EXPECT_EQ(emails[0]["title"], "1 new comments on alpha");
  ExpectItems(emails[0], "author1: alpha comment 1\n");
}

// A server is killed (-9) while it releases delayed notifications that
// fell due while no server ran: after the next start each one is a
// notification exactly once, under the id its request was answered with.
TEST_F(WorkflowsBlackBox, KilledWhileReleasingDelayedNotificationsEachAppearsOnce) {
  StartServer();
  constexpr int kUsers = 5, kBatches = 10, kPerBatch = 500;
  for (int u = 1; u <= kUsers; ++u) MakeUser(u);
  std::vector<std::int64_t> ids;
  for (int b = 0; b < kBatches; ++b) {
    json batch = json::array();
    for (int i = 0; i < kPerBatch; ++i) {
      batch.push_back({{"user_id", 1 + i % kUsers},
                       {"type", "task.due"},
                       {"title", "Reminder " + std::to_string(b) + "-" + std::to_string(i)},
                       {"channels", json::array()},
                       {"delay_seconds", 3}});
    }
    const auto posted = api().Call("POST", "/v1/notifications/batch", {{"notifications", batch}});
    ASSERT_EQ(posted.status, 200) << posted.body;
    const json answer = ParseJsonOrDiscarded(posted.body);
    ASSERT_TRUE(answer.is_object())
        << posted.body.substr(0, 300) << " ... " << posted.body.substr(posted.body.size() - 300);
    const json results = answer.value("results", json());
    for (const json& result : results) {
      ASSERT_TRUE(result.contains("send_at")) << result.dump();
      ids.push_back(result.value("id", std::int64_t{0}));
    }
  }
  servers_[0]->Signal(SIGKILL);
  servers_[0]->Wait(10s);
  ASSERT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0) << "released early";
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db_->Count(
                   "SELECT count(*) FROM chopar.delayed_notifications "
                   "WHERE due_at > now()") == 0;
      },
      30s));

  // Ten batches of releases (500 each) are due: the kill lands after the
  // first. Each release's insert is held 300 ms by a trigger, so the ten
  // take seconds and the kill lands among them even on a loaded machine.
  db_->Scalar(
      "CREATE FUNCTION public.slow_release() RETURNS trigger LANGUAGE plpgsql AS $$ "
      "BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$");
  db_->Scalar(
      "CREATE TRIGGER slow_release AFTER INSERT ON chopar.notifications "
      "FOR EACH STATEMENT EXECUTE FUNCTION public.slow_release()");
  StartServer();
  ASSERT_TRUE(
      WaitUntil([&] { return db_->Count("SELECT count(*) FROM chopar.notifications") > 0; }, 30s))
      << Output();
  servers_[0]->Signal(SIGKILL);
  servers_[0]->Wait(10s);
  EXPECT_GT(db_->Count("SELECT count(*) FROM chopar.delayed_notifications"), 0)
      << "all released before the kill: the test proves nothing";
  db_->Scalar("DROP TRIGGER slow_release ON chopar.notifications");
  StartServer();
  EXPECT_TRUE(WaitUntil(
      [&] { return db_->Count("SELECT count(*) FROM chopar.delayed_notifications") == 0; }, 60s))
      << Output();

  constexpr int kTotal = kBatches * kPerBatch;
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), kTotal);
  std::string id_list;
  for (const std::int64_t id : ids) id_list += (id_list.empty() ? "" : ",") + std::to_string(id);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications WHERE id IN (" + id_list + ")"),
            kTotal)
      << "a notification under another id than its request was answered with";
  EXPECT_EQ(db_->Count("SELECT count(DISTINCT title) FROM chopar.notifications"), kTotal);
}

TEST_F(WorkflowsBlackBox, ThrottleSendsTwoOfFiveAndSkipsTheRest) {
  // Four delivery loops claim at once: the throttle holds across them.
  StartServer(0, {{"CHOPAR_DELIVERY_CONCURRENCY", "4"}});
  PutTemplate("task.noisy", {{"throttle", {{"limit", 2}, {"window_seconds", 3600}}}});
  MakeUser(1);
  MakeUser(2);
  std::vector<std::int64_t> noisy, other_user;
  for (int i = 0; i < 5; ++i) {
    noisy.push_back(Notify({{"user_id", 1},
                            {"type", "task.noisy"},
                            {"channels", {"email"}},
                            {"data", {{"title", "Comment " + std::to_string(i)}}}}));
    other_user.push_back(Notify({{"user_id", 2},
                                 {"type", "task.noisy"},
                                 {"channels", {"email"}},
                                 {"data", {{"title", "Other " + std::to_string(i)}}}}));
  }
  for (const auto* ids : {&noisy, &other_user}) {
    int sent = 0, throttled = 0;
    for (const std::int64_t id : *ids) {
      const json d = Settled(id).at(0);
      if (d["status"] == "sent") ++sent;
      if (d["status"] == "skipped" && d["last_error"] == "throttled") ++throttled;
    }
    EXPECT_EQ(sent, 2) << "per user";
    EXPECT_EQ(throttled, 3);
  }
  const auto skipped = Get("/v1/deliveries?status=skipped&limit=100");
  EXPECT_EQ(skipped["items"].size(), 6u) << skipped.dump();
}

TEST_F(WorkflowsBlackBox, EscalationCancelsWhatWasReadAndSendsTheRest) {
  StartServer();
  PutTemplate("task.assigned", {{"escalate", {{"after_seconds", 8}, {"channels", {"email"}}}}});
  MakeUser(1);
  ASSERT_EQ(api().Call("PUT", "/v1/users/1/telegram", {{"chat_id", 77}}).status, 200);
  const json body = {{"user_id", 1},
                     {"type", "task.assigned"},
                     {"channels", {"email", "telegram"}},
                     {"data", {{"title", "Review the plan"}}}};
  const std::int64_t read = Notify(body);
  const std::int64_t unread = Notify(body);
  // Telegram is not held: it goes at once, while the emails wait.
  ASSERT_TRUE(WaitUntil(
      [&] {
        const json notification = Get("/v1/notifications/" + std::to_string(read));
        for (const json& d : notification["deliveries"]) {
          if (d["channel"] == "telegram" && d["status"] == "sent") return true;
        }
        return false;
      },
      30s))
      << Get("/v1/notifications/" + std::to_string(read)).dump() << Output();
  const json held = Get("/v1/notifications/" + std::to_string(read));
  for (const json& d : held["deliveries"]) {
    if (d["channel"] == "email") {
      EXPECT_EQ(d["status"], "queued") << "held until after_seconds";
    }
  }
  // Read through the subscriber's own path (the inbox token), as the bell does.
  const auto token = ParseJsonOrDiscarded(api().Call("GET", "/v1/users/1/token").body);
  ASSERT_TRUE(token.contains("token")) << token.dump();
  Api subscriber(port(), token["token"].get<std::string>());
  const auto marked = subscriber.Call("POST", "/v1/inbox/read", {{"ids", {read}}});
  ASSERT_EQ(marked.status, 200) << marked.body;

  for (const json& d : Settled(read)) {
    if (d["channel"] != "email") continue;
    EXPECT_EQ(d["status"], "canceled");
    EXPECT_EQ(d["last_error"], "read");
  }
  for (const json& d : Settled(unread)) EXPECT_EQ(d["status"], "sent") << d.dump();
  const auto canceled = Get("/v1/deliveries?status=canceled");
  EXPECT_EQ(canceled["items"].size(), 1u) << canceled.dump();
  const std::string metrics = api().Call("GET", "/metrics").body;
  EXPECT_NE(metrics.find("chopar_deliveries_total{channel=\"email\",status=\"canceled\"} 1"),
            std::string::npos);
}

TEST_F(WorkflowsBlackBox, TemplateWorkflowSettingsAreCheckedWithTheFieldNamed) {
  StartServer();
  const json locales = {{"en", {{"title", "Hi"}}}};
  const std::vector<std::pair<json, std::string>> refused = {
      {{{"digest", {{"window_seconds", 0}}}}, "digest.window_seconds"},
      {{{"digest", {{"window_seconds", 60}, {"key", "{{#open}}"}}}}, "digest.key"},
      {{{"throttle", {{"limit", 2}}}}, "throttle.window_seconds"},
      {{{"escalate", {{"after_seconds", 60}, {"channels", {"fax"}}}}}, "escalate.channels"},
  };
  for (const auto& [settings, field] : refused) {
    json body = {{"default_locale", "en"}, {"locales", locales}};
    body.update(settings);
    const auto put = api().Call("PUT", "/v1/templates/task.due", body);
    EXPECT_EQ(put.status, 400) << settings.dump();
    EXPECT_EQ(ParseJsonOrDiscarded(put.body)["error"]["field"], field) << put.body;
  }
  const auto deliveries = api().Call("GET", "/v1/deliveries?status=bogus");
  EXPECT_EQ(deliveries.status, 400);
  EXPECT_NE(deliveries.body.find("canceled"), std::string::npos) << deliveries.body;
}

}  // namespace
}  // namespace chopar
