// Black-box, workflows with steps (docs/api.md "Workflows with steps"): the
// escalation example — in-app now; after a delay, if still unseen and on the
// pro plan, push; if the push address is gone, email — through the built
// `chopar serve` with its real Web Push and SMTP providers pointed at fakes
// on 127.0.0.1, on a real PostgreSQL. Unseen → one push and no email; push
// answered 410 Gone → exactly one email; seen before the delay ends, or the
// free plan → nothing sent (`condition_false`). Two processes advancing 200
// runs at once, and a process killed (-9) while its batch of a step is in
// progress with a new one finishing, do each step once: one push request per
// notification and one email per notification whose push was gone.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "channels/webpush/crypto.hpp"
#include "channels/webpush/vapid.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "faults/fault_support.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/fake_smtp_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::FakeHttpServer;
using testing::FakeSmtpServer;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "workflow-steps-key";
constexpr char kType[] = "task.due";

// The escalation example with a delay of `seconds`.
json Escalation(int seconds) {
  return {{"default_locale", "en"},
          {"locales", {{"en", {{"title", "Task due"}}}}},
          {"steps",
           {{{"type", "delay"}, {"seconds", seconds}},
            {{"type", "channel"},
             {"first_of", {"push", "email"}},
             {"condition", "notification.seen == false && user.data.plan == \"pro\""}}}}};
}

// Where a user's one push subscription points: a push service that accepts
// (201) or one that says the subscription is gone (410).
enum class Push { kAccepted, kGone };

std::string Email(std::int64_t user) { return "user" + std::to_string(user) + "@example.uz"; }

class WorkflowStepsBlackBox : public testing::DatabaseBlackBox {
 protected:
  // Starts `chopar serve` number `index` (all roles; its own port and log)
  // with Web Push and SMTP pointed at the fakes, and waits until it answers.
  void StartServer(std::size_t index) {
    if (servers_.size() <= index) servers_.resize(index + 1);
    if (apis_.size() <= index) apis_.resize(index + 1);
    const int port = FreeLoopbackPort();
    servers_[index] =
        Start("serve", port,
              DatabaseEnv(kApiKey,
                          {{"CHOPAR_CHANNELS_PUSH_PROVIDER", "webpush"},
                           {"CHOPAR_CHANNELS_PUSH_VAPID_PUBLIC_KEY", vapid_.public_key},
                           {"CHOPAR_CHANNELS_PUSH_VAPID_PRIVATE_KEY", vapid_.private_key},
                           {"CHOPAR_CHANNELS_PUSH_ALLOW_HTTP_ENDPOINTS", "true"},
                           {"CHOPAR_CHANNELS_EMAIL_PROVIDER", "smtp"},
                           {"CHOPAR_CHANNELS_EMAIL_SMTP_URL", smtp_.url()},
                           {"CHOPAR_CHANNELS_EMAIL_FROM", "chopar <noreply@chopar.example.uz>"}}),
              "serve" + std::to_string(index) + ".log");
    apis_[index] = std::make_unique<Api>(port, kApiKey);
    ASSERT_TRUE(WaitUntil([&] { return apis_[index]->Healthy(); }, 60s))
        << servers_[index]->Output();
  }
  Api& api(std::size_t index = 0) { return *apis_.at(index); }
  std::string Output(std::size_t index = 0) const { return servers_.at(index)->Output(); }

  void PutEscalation(int seconds) {
    const auto put = api().Call("PUT", std::string("/v1/templates/") + kType, Escalation(seconds));
    ASSERT_EQ(put.status, 200) << put.body;
  }

  // User `id` on `plan`, with an email address and one push subscription,
  // made through server `server`.
  void MakeUser(std::int64_t id, const std::string& plan, Push push, std::size_t server = 0) {
    const std::string path = "/v1/users/" + std::to_string(id);
    const auto put =
        api(server).Call("PUT", path, {{"email", Email(id)}, {"data", {{"plan", plan}}}});
    ASSERT_EQ(put.status, 200) << put.body;
    const json subscription = {{"endpoint", push_.url() + PushPath(id, push)},
                               {"keys",
                                {{"p256dh", core::Base64UrlEncode(browser_keys_.public_key)},
                                 {"auth", core::Base64UrlEncode(browser_auth_)}}}};
    const auto added = api(server).Call("POST", path + "/push-subscriptions", subscription);
    ASSERT_EQ(added.status, 201) << added.body;
  }
  static std::string PushPath(std::int64_t user, Push push) {
    return (push == Push::kGone ? "/push/gone/" : "/push/ok/") + std::to_string(user);
  }

  std::int64_t Notify(std::int64_t user) {
    const auto created =
        api().Call("POST", "/v1/notifications", {{"user_id", user}, {"type", kType}});
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body).value("id", std::int64_t{0});
  }
  // One notification for each of `users`, in one request (one transaction:
  // their runs are due together).
  void NotifyEach(const std::vector<std::int64_t>& users, std::size_t server = 0) {
    json items = json::array();
    for (const std::int64_t user : users) items.push_back({{"user_id", user}, {"type", kType}});
    const auto created =
        api(server).Call("POST", "/v1/notifications/batch", {{"notifications", items}});
    ASSERT_EQ(created.status, 200) << created.body;
    for (const json& result : ParseJsonOrDiscarded(created.body)["results"]) {
      ASSERT_TRUE(result.contains("id")) << result.dump();
    }
  }

  json Notification(std::int64_t id) {
    return ParseJsonOrDiscarded(api().Call("GET", "/v1/notifications/" + std::to_string(id)).body);
  }
  // The notification once its workflow run is done (or canceled); fails the
  // test if it is not within 30 s.
  json Finished(std::int64_t id) {
    json notification;
    const bool finished = WaitUntil(
        [&] {
          notification = Notification(id);
          const json status = notification["workflow"]["status"];
          return status == "done" || status == "canceled";
        },
        30s);
    EXPECT_TRUE(finished) << notification.dump() << "\n" << Output();
    return notification;
  }
  // Each step's outcome, in order ("delayed,sent").
  static std::string Outcomes(const json& notification) {
    std::string text;
    for (const json& step : notification["workflow"]["steps"]) {
      (text.empty() ? text : text += ",") += step.value("outcome", "?");
    }
    return text;
  }
  // "channel:status" of each delivery, in creation order.
  static std::string Deliveries(const json& notification) {
    std::string text;
    for (const json& d : notification["deliveries"]) {
      (text.empty() ? text : text += ",") +=
          d["channel"].get<std::string>() + ":" + d["status"].get<std::string>();
    }
    return text;
  }

  // Whether every one of `count` runs is done, waiting up to `within`.
  bool AllRunsDone(std::int64_t count, std::chrono::seconds within) {
    return WaitUntil(
        [&] {
          return db_->Count("SELECT count(*) FROM chopar.workflow_runs WHERE status = 'done'") ==
                 count;
        },
        within);
  }

  // Requests the push service received, by path.
  std::map<std::string, int> Pushes() const {
    std::map<std::string, int> by_path;
    for (const auto& request : push_.requests()) ++by_path[request.target];
    return by_path;
  }
  // Emails the SMTP server accepted, by recipient.
  std::map<std::string, int> Emails() const {
    std::map<std::string, int> by_recipient;
    for (const auto& message : smtp_.messages()) {
      for (const auto& to : message.rcpt_to) ++by_recipient[to];
    }
    return by_recipient;
  }

  // Users 1..`count`, all on the pro plan; the odd ones' push address is
  // gone, the even ones' accepts. Made through the servers in turn.
  std::vector<std::int64_t> MakeProUsers(std::int64_t count) {
    std::vector<std::int64_t> users;
    for (std::int64_t id = 1; id <= count; ++id) {
      MakeUser(id, "pro", id % 2 == 1 ? Push::kGone : Push::kAccepted,
               static_cast<std::size_t>(id) % apis_.size());
      users.push_back(id);
    }
    return users;
  }

  // What MakeProUsers' users must have got once every run is done: one push
  // request each, one email each odd user (its push was gone) and none the
  // even ones, each step once: no notification with two deliveries on one
  // channel, every run `delayed` then `sent` on the channel that took it.
  void ExpectEachStepOnce(const std::vector<std::int64_t>& users) {
    const auto pushes = Pushes();
    const auto emails = Emails();
    std::size_t expected_emails = 0;
    for (const std::int64_t id : users) {
      const Push push = id % 2 == 1 ? Push::kGone : Push::kAccepted;
      const auto pushed = pushes.find(PushPath(id, push));
      EXPECT_EQ(pushed == pushes.end() ? 0 : pushed->second, 1) << "user " << id;
      const auto emailed = emails.find(Email(id));
      const int count = emailed == emails.end() ? 0 : emailed->second;
      EXPECT_EQ(count, push == Push::kGone ? 1 : 0) << "user " << id;
      if (push == Push::kGone) ++expected_emails;
    }
    EXPECT_EQ(push_.request_count(), users.size());
    EXPECT_EQ(smtp_.message_count(), expected_emails);
    EXPECT_EQ(db_->Count("SELECT count(*) FROM (SELECT notification_id, channel FROM "
                         "chopar.deliveries GROUP BY 1, 2 HAVING count(*) > 1) twice"),
              0);
    // Push only where it was accepted; the gone ones' push failed, then email.
    EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries d WHERE d.channel = 'push' AND "
                         "d.status = CASE WHEN d.user_id % 2 = 1 THEN 'failed' ELSE 'sent' END"),
              static_cast<std::int64_t>(users.size()));
    EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries WHERE channel = 'email' AND "
                         "status = 'sent' AND user_id % 2 = 1"),
              static_cast<std::int64_t>(expected_emails));
    EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"),
              static_cast<std::int64_t>(users.size() + expected_emails));
    EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.workflow_runs WHERE status = 'done' AND "
                         "jsonb_array_length(outcomes) = 2 AND outcomes -> 0 ->> 'outcome' = "
                         "'delayed' AND outcomes -> 1 ->> 'outcome' = 'sent' AND outcomes -> 1 "
                         "->> 'channel' = CASE WHEN user_id % 2 = 1 THEN 'email' ELSE 'push' END"),
              static_cast<std::int64_t>(users.size()));
  }

  // chopar_workflow_runs_advanced_total of server `index` (its /metrics on
  // the API port, with the API key).
  double RunsAdvanced(std::size_t index) {
    return MetricOf(index, "chopar_workflow_runs_advanced_total");
  }
  // The value of the metric line `series` (the name with its labels, as
  // rendered) on server `index`'s /metrics; 0 when it has none.
  double MetricOf(std::size_t index, const std::string& series) {
    std::istringstream metrics(api(index).Call("GET", "/metrics").body);
    for (std::string line; std::getline(metrics, line);) {
      if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
    }
    return 0;
  }

  // Server 0 with the escalation after `delay` seconds, and user 1 on
  // `plan` with its push subscription; notifies user 1 and returns the
  // notification's id.
  std::int64_t NotifyOneUser(int delay, const std::string& plan, Push push) {
    StartServer(0);
    PutEscalation(delay);
    MakeUser(1, plan, push);
    return Notify(1);
  }
  // What a run whose channel step's condition was false shows: nothing sent.
  void ExpectConditionFalseAndNothingSent(std::int64_t id) {
    const json done = Finished(id);
    EXPECT_EQ(Outcomes(done), "delayed,condition_false") << done.dump();
    EXPECT_EQ(done["deliveries"], json::array()) << done.dump();
    EXPECT_EQ(push_.request_count(), 0u);
    EXPECT_EQ(smtp_.message_count(), 0u);
  }

  void StopAll() {
    for (auto& server : servers_) {
      if (server == nullptr || !server->Running()) continue;
      server->Signal(SIGTERM);
      EXPECT_EQ(server->Wait(30s), 0) << server->Output();
    }
  }

  // A push service: /push/gone/… answers as for an unsubscribed browser,
  // /push/ok/… accepts.
  FakeHttpServer::Response PushService(const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    response.content_type = "text/plain";
    if (request.target.starts_with("/push/gone/")) {
      response.status = 410;
      response.body = "push subscription has unsubscribed or expired";
    } else if (request.target.starts_with("/push/ok/")) {
      response.status = 201;
      response.headers["Location"] = push_.url() + "/m" + request.target;
    } else {
      response.status = 404;
    }
    return response;
  }

  const channels::webpush::VapidKeys vapid_ = channels::webpush::GenerateVapidKeys();
  // One browser's keys for every subscription: the test does not read the
  // payloads, only who was pushed to.
  const channels::webpush::P256KeyPair browser_keys_ = channels::webpush::GenerateP256KeyPair();
  const std::string browser_auth_ = core::RandomBytes(channels::webpush::kPushAuthSecretSize);
  FakeHttpServer push_{[this](const FakeHttpServer::Request& r) { return PushService(r); }};
  FakeSmtpServer smtp_;
  std::vector<std::unique_ptr<ChildProcess>> servers_;
  std::vector<std::unique_ptr<Api>> apis_;
};

TEST_F(WorkflowStepsBlackBox, UnseenProUserIsPushedAfterTheDelayAndNotEmailed) {
  const auto before = std::chrono::system_clock::now();
  const std::int64_t id = NotifyOneUser(2, "pro", Push::kAccepted);
  const json done = Finished(id);
  EXPECT_EQ(Outcomes(done), "delayed,sent") << done.dump();
  EXPECT_EQ(done["workflow"]["steps"][1]["channel"], "push") << done.dump();
  EXPECT_EQ(Deliveries(done), "push:sent") << done.dump();
  const auto requests = push_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, PushPath(1, Push::kAccepted));
  EXPECT_GE(requests[0].received_at, before + 2s) << "pushed before the delay ended";
  EXPECT_EQ(smtp_.message_count(), 0u);
  StopAll();
}

TEST_F(WorkflowStepsBlackBox, PushAddressGoneFallsToExactlyOneEmail) {
  const std::int64_t id = NotifyOneUser(1, "pro", Push::kGone);
  const json done = Finished(id);
  EXPECT_EQ(Outcomes(done), "delayed,sent") << done.dump();
  EXPECT_EQ(done["workflow"]["steps"][1]["channel"], "email") << done.dump();
  EXPECT_EQ(Deliveries(done), "push:failed,email:sent") << done.dump();
  EXPECT_EQ(Pushes(), (std::map<std::string, int>{{PushPath(1, Push::kGone), 1}}));
  // The run is done: nothing more can come.
  const auto messages = smtp_.messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].rcpt_to, std::vector<std::string>{Email(1)});
  EXPECT_EQ(messages[0].delivery_id,
            testing::DeliveryOn(done, "email").value("id", std::int64_t{0}));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.push_subscriptions"), 0)
      << "the gone subscription is deleted";
  StopAll();
}

TEST_F(WorkflowStepsBlackBox, SeenBeforeTheDelayEndsSendsNothing) {
  const std::int64_t id = NotifyOneUser(3, "pro", Push::kAccepted);
  const auto seen = api().Call("POST", "/v1/users/1/notifications/seen", {{"ids", {id}}});
  ASSERT_EQ(seen.status, 200) << seen.body;
  EXPECT_EQ(ParseJsonOrDiscarded(seen.body)["updated"], 1);
  // In time: the channel step had not been evaluated when the user saw it.
  const json pending = Notification(id);
  ASSERT_LE(pending["workflow"]["steps"].size(), 1u)
      << "the delay ended before the notification was seen: " << pending.dump();
  ExpectConditionFalseAndNothingSent(id);
  StopAll();
}

TEST_F(WorkflowStepsBlackBox, FreePlanSendsNothing) {
  ExpectConditionFalseAndNothingSent(NotifyOneUser(1, "free", Push::kAccepted));
  StopAll();
}

TEST_F(WorkflowStepsBlackBox, TwoServersDoEachStepOnce) {
  constexpr std::int64_t kUsers = 200;
  StartServer(0);
  StartServer(1);
  PutEscalation(1);
  const auto users = MakeProUsers(kUsers);
  // The steps server 0 stored, as the other server reads them back.
  const json stored =
      ParseJsonOrDiscarded(api(1).Call("GET", std::string("/v1/templates/") + kType).body);
  ASSERT_EQ(stored["steps"].size(), 2u) << stored.dump();
  EXPECT_EQ(stored["steps"][1]["first_of"], json({"push", "email"})) << stored.dump();
  // Half the notifications through each server, each half in one request.
  NotifyEach({users.begin(), users.begin() + kUsers / 2}, 0);
  NotifyEach({users.begin() + kUsers / 2, users.end()}, 1);
  ASSERT_TRUE(AllRunsDone(kUsers, 60s))
      << db_->Scalar(
             "SELECT string_agg(status || ':' || n, ', ') FROM (SELECT status, count(*) "
             "n FROM chopar.workflow_runs GROUP BY 1) s")
      << "\n"
      << Output(0);
  ExpectEachStepOnce(users);
  // Both advanced runs: the steps were shared, not done by one alone.
  EXPECT_GT(RunsAdvanced(0), 0);
  EXPECT_GT(RunsAdvanced(1), 0);
  StopAll();
}

TEST_F(WorkflowStepsBlackBox, KilledMidBatchOfAStepTheNextProcessSendsEachOnce) {
  constexpr std::int64_t kUsers = 100;
  StartServer(0);
  PutEscalation(3);
  const auto users = MakeProUsers(kUsers);
  NotifyEach(users);
  // Every run past its delay step, its channel step due in 3 s.
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db_->Count(
                   "SELECT count(*) FROM chopar.workflow_runs WHERE status = 'active' "
                   "AND step = 1") == kUsers;
      },
      30s))
      << Output();
  // Hold the runs' table against writes (not against FOR UPDATE): the batch
  // that does the channel steps claims its runs, decides, and then waits to
  // write them and their deliveries.
  db::Connection blocker = db_->Connect();
  blocker.ExecText("BEGIN", {});
  blocker.ExecText("LOCK TABLE chopar.workflow_runs IN SHARE MODE", {});
  ASSERT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 0)
      << "a channel step was done before the table was held";
  // The one statement that waits for the table: the batch's write (its
  // claim locked rows, which the table's SHARE lock allows).
  std::optional<std::int64_t> backend;
  WaitUntil(
      [&] {
        backend =
            testing::BackendWaitingIn(*db_, "", "w.relation = 'chopar.workflow_runs'::regclass");
        return backend.has_value();
      },
      30s);
  ASSERT_TRUE(backend) << "the channel steps' batch never came\n" << Output();
  // Mid-batch: every run is held by it.
  EXPECT_EQ(db_->Count("SELECT count(*) FROM (SELECT 1 FROM chopar.workflow_runs FOR UPDATE "
                       "SKIP LOCKED) free"),
            0);
  servers_[0]->Signal(SIGKILL);
  EXPECT_EQ(servers_[0]->Wait(10s), 128 + SIGKILL);
  // The dead process's session finishes its statement once the table is
  // let go, never gets its COMMIT, and rolls the batch back when it notices
  // the client is gone.
  blocker.ExecText("ROLLBACK", {});
  ASSERT_TRUE(WaitUntil([&] { return testing::BackendGone(*db_, *backend); }, 30s));
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.deliveries"), 0);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.workflow_runs WHERE status = 'active' AND "
                       "step = 1"),
            kUsers);
  EXPECT_EQ(push_.request_count(), 0u);

  StartServer(1);
  ASSERT_TRUE(AllRunsDone(kUsers, 60s)) << Output(1);
  ExpectEachStepOnce(users);
  StopAll();
}

// Email now; after the delay, push unless the notification was read: the
// push step is decided by the read state alone, so notify creates its
// delivery held until the delay's end and the run is done at once
// (outcome "scheduled"), without an advance. Unread → one push after the
// delay; read in time → that delivery is canceled ("read"), nothing pushed.
TEST_F(WorkflowStepsBlackBox, AStepOnlyTheReadStateDecidesIsHeldWithTheNotification) {
  StartServer(0);
  const json tmpl = {
      {"default_locale", "en"},
      {"locales", {{"en", {{"title", "Task due"}}}}},
      {"steps",
       {{{"type", "channel"}, {"channel", "email"}},
        {{"type", "delay"}, {"seconds", 2}},
        {{"type", "channel"}, {"channel", "push"}, {"condition", "notification.read == false"}}}}};
  const auto put = api().Call("PUT", std::string("/v1/templates/") + kType, tmpl);
  ASSERT_EQ(put.status, 200) << put.body;
  MakeUser(1, "free", Push::kAccepted);
  MakeUser(2, "free", Push::kAccepted);
  const auto before = std::chrono::system_clock::now();
  const std::int64_t unread = Notify(1);
  const std::int64_t read = Notify(2);
  const auto marked = api().Call("POST", "/v1/users/2/notifications/read", {{"ids", {read}}});
  ASSERT_EQ(marked.status, 200) << marked.body;

  for (const std::int64_t id : {unread, read}) {
    const json now = Notification(id);
    EXPECT_EQ(now["workflow"]["status"], "done") << now.dump();
    EXPECT_EQ(Outcomes(now), "queued,delayed,scheduled") << now.dump();
    EXPECT_EQ(now["workflow"]["steps"][2]["channel"], "push") << now.dump();
    EXPECT_EQ(now["workflow"]["steps"][2]["until"], now["workflow"]["steps"][1]["until"]);
    // Each channel entry names the delivery it queued (the notify statement
    // created both); the delay none.
    for (const int step : {0, 2}) {
      const json& entry = now["workflow"]["steps"][step];
      const auto delivery = std::ranges::find(now["deliveries"], entry["channel"],
                                              [](const json& d) { return d["channel"]; });
      ASSERT_NE(delivery, now["deliveries"].end()) << now.dump();
      EXPECT_EQ(entry["delivery_id"], (*delivery)["id"]) << now.dump();
    }
    EXPECT_TRUE(now["workflow"]["steps"][1]["delivery_id"].is_null()) << now.dump();
  }
  json sent, canceled;
  ASSERT_TRUE(WaitUntil(
      [&] {
        sent = Notification(unread);
        canceled = Notification(read);
        return Deliveries(sent) == "email:sent,push:sent" &&
               Deliveries(canceled) == "email:sent,push:canceled";
      },
      30s))
      << sent.dump() << "\n"
      << canceled.dump() << "\n"
      << Output();
  EXPECT_EQ(canceled["deliveries"][1]["last_error"], "read") << canceled.dump();
  const auto requests = push_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, PushPath(1, Push::kAccepted));
  EXPECT_GE(requests[0].received_at, before + 2s) << "pushed before the delay ended";
  EXPECT_EQ(smtp_.message_count(), 2u);
  EXPECT_EQ(RunsAdvanced(0), 0) << "no advance: notify did every step";
  // Those steps are counted all the same, once each.
  for (const char* outcome : {"queued", "delayed", "scheduled"}) {
    EXPECT_EQ(MetricOf(0, std::string("chopar_workflow_steps_total{outcome=\"") + outcome + "\"}"),
              2)
        << outcome;
  }
  StopAll();
}

}  // namespace
}  // namespace chopar
