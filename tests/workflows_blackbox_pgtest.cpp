// Black-box, workflows (docs/api.md "Workflows"): the built `chopar serve`
// with the sink providers on a real PostgreSQL. A throttled type sends 2 of
// 5 and skips the rest as `throttled`, also with several delivery loops
// claiming at once; escalate-if-unread cancels the held email of a
// notification read in time (`read`) and sends the other's; a template's
// workflow settings are refused with the field named.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "testing/child_process.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using testing::Api;
using testing::ChildProcess;
using testing::FreeLoopbackPort;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "workflows-key";

json Parse(const std::string& text) {
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

class WorkflowsBlackBox : public testing::BlackBox {
 protected:
  void SetUp() override {
    if (!testing::TestDatabase::Available()) GTEST_SKIP() << "CHOPAR_TEST_DATABASE_URL is not set";
    BlackBox::SetUp();
    db_ = std::make_unique<testing::TestDatabase>();
  }

  // Starts `chopar serve` number `index` (its own port and log) on the
  // test's database, every channel to the sink.
  void StartServer(std::size_t index = 0, std::map<std::string, std::string> env = {}) {
    env["CHOPAR_DATABASE_URL"] = db_->url();
    env["CHOPAR_SERVER_API_KEY"] = kApiKey;
    env["CHOPAR_SERVER_INBOX_SECRET"] = "inbox-secret-for-tests";
    if (servers_.size() <= index) servers_.resize(index + 1);
    if (apis_.size() <= index) apis_.resize(index + 1);
    const int port = FreeLoopbackPort();
    servers_[index] = Start("serve", port, env, "serve" + std::to_string(index) + ".log");
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
    return Parse(created.body).value("id", std::int64_t{0});
  }
  json Get(const std::string& path) { return Parse(api().Call("GET", path).body); }

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

  std::unique_ptr<testing::TestDatabase> db_;
  std::vector<std::unique_ptr<ChildProcess>> servers_;
  std::vector<std::unique_ptr<Api>> apis_;
  std::vector<int> ports_;
};

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
  const auto token = Parse(api().Call("GET", "/v1/users/1/token").body);
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
    EXPECT_EQ(Parse(put.body)["error"]["field"], field) << put.body;
  }
  const auto deliveries = api().Call("GET", "/v1/deliveries?status=bogus");
  EXPECT_EQ(deliveries.status, 400);
  EXPECT_NE(deliveries.body.find("canceled"), std::string::npos) << deliveries.body;
}

}  // namespace
}  // namespace chopar
