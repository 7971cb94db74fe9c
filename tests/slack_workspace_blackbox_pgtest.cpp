// Black-box, Slack's installed-workspace form: the built `chopar serve`
// with [channels.slack]'s app configured against a fake of Slack's Web API
// on 127.0.0.1 (oauth.v2.access, users.lookupByEmail, chat.postMessage with
// their `ok: false` errors and 429s). The install's OAuth v2 round trip
// keeps the workspace's bot token sealed; a user is connected by email;
// posts carry the bot token and Block Kit blocks; a conversation Slack
// reports gone is removed from the user; a 429 rests the workspace; two
// processes racing against a Slack slower than the lease post each delivery
// once; `kill -9` mid-post never posts again; an uninstalled workspace
// posts nothing.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "slack-app-key";
constexpr char kClientId[] = "1234567890.0987654321";
constexpr char kClientSecret[] = "fake-client-secret";
constexpr char kBotToken[] = "xoxb-1111-2222-fakeBotToken";
constexpr char kTeam[] = "T0TEAM1234";

FakeHttpServer::Response SlackJson(int status, json body) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = body.dump();
  return response;
}

std::map<std::string, std::string> Form(const std::string& body) {
  std::map<std::string, std::string> form;
  for (auto& [name, value] : core::DecodeFormPairs(body, core::MalformedEscapes::kKeepAsSent)
                                 .value_or(std::vector<std::pair<std::string, std::string>>{})) {
    form[name] = value;
  }
  return form;
}

std::string QueryValue(const std::string& url, const std::string& name) {
  const auto query = url.find('?');
  if (query == std::string::npos) return "";
  for (auto& [key, value] :
       core::DecodeFormPairs(url.substr(query + 1), core::MalformedEscapes::kKeepAsSent)
           .value_or(std::vector<std::pair<std::string, std::string>>{})) {
    if (key == name) return value;
  }
  return "";
}

class SlackWorkspaceBlackBox : public testing::DatabaseBlackBox {
 protected:
  std::unique_ptr<ChildProcess> StartServe(int port, const std::string& log,
                                           std::map<std::string, std::string> more = {}) {
    more.emplace("CHOPAR_CHANNELS_SLACK_PROVIDER", "slack");
    more.emplace("CHOPAR_CHANNELS_SLACK_CLIENT_ID", kClientId);
    more.emplace("CHOPAR_CHANNELS_SLACK_CLIENT_SECRET", kClientSecret);
    more.emplace("CHOPAR_CHANNELS_SLACK_TOKEN_KEY", "a-test-key-of-at-least-32-characters!");
    more.emplace("CHOPAR_CHANNELS_SLACK_API_URL", slack_.url() + "/api");
    more.emplace("CHOPAR_CHANNELS_SLACK_AUTHORIZE_URL", slack_.url() + "/oauth/v2/authorize");
    more.emplace("CHOPAR_SERVER_PUBLIC_URL", "https://chopar.example.com");
    return Start("serve", port, DatabaseEnv(kApiKey, std::move(more)), log);
  }

  // Slack's Web API as the fake answers it.
  FakeHttpServer::Response Slack(const FakeHttpServer::Request& request) {
    const std::string method = request.target.substr(0, request.target.find('?'));
    const auto auth = request.headers.find("authorization");
    const bool bot =
        auth != request.headers.end() && auth->second == std::string("Bearer ") + kBotToken;
    std::lock_guard lock(mutex_);
    if (method == "/api/oauth.v2.access") {
      auto form = Form(request.body);
      if (form["client_id"] != kClientId || form["client_secret"] != kClientSecret) {
        return SlackJson(200, {{"ok", false}, {"error", "invalid_client_id"}});
      }
      if (form["redirect_uri"] != "https://chopar.example.com/v1/slack/oauth/callback") {
        return SlackJson(200, {{"ok", false}, {"error", "bad_redirect_uri"}});
      }
      if (form["code"] != "good-code") {
        return SlackJson(200, {{"ok", false}, {"error", "invalid_code"}});
      }
      if (!used_codes_.insert(form["code"]).second) {
        return SlackJson(200, {{"ok", false}, {"error", "code_already_used"}});
      }
      return SlackJson(200, {{"ok", true},
                             {"access_token", kBotToken},
                             {"token_type", "bot"},
                             {"scope", "chat:write,im:write,users:read,users:read.email"},
                             {"bot_user_id", "U0BOT12345"},
                             {"app_id", "A0APP12345"},
                             {"team", {{"id", kTeam}, {"name", "Acme"}}},
                             {"enterprise", nullptr}});
    }
    if (!bot) return SlackJson(200, {{"ok", false}, {"error", "invalid_auth"}});
    if (method == "/api/users.lookupByEmail") {
      const auto form = Form(request.body);
      const auto email = form.find("email");
      if (email != form.end() && email->second == "ali@example.com") {
        return SlackJson(200, {{"ok", true}, {"user", {{"id", "U0ALI12345"}, {"team_id", kTeam}}}});
      }
      return SlackJson(200, {{"ok", false}, {"error", "users_not_found"}});
    }
    if (method == "/api/chat.postMessage") {
      const json body = ParseJsonOrDiscarded(request.body);
      if (!body.is_object() || !body.contains("channel") || !body["channel"].is_string()) {
        return SlackJson(200, {{"ok", false}, {"error", "invalid_arguments"}});
      }
      const std::string channel = body["channel"];
      if (gone_.contains(channel)) {
        return SlackJson(200, {{"ok", false}, {"error", "channel_not_found"}});
      }
      if (limited_.erase(channel) > 0) {
        FakeHttpServer::Response limited =
            SlackJson(429, {{"ok", false}, {"error", "ratelimited"}});
        limited.headers["Retry-After"] = "1";
        return limited;
      }
      FakeHttpServer::Response sent =
          SlackJson(200, {{"ok", true},
                          {"channel", channel},
                          {"ts", "1765000000.00" + std::to_string(1000 + ++posted_)},
                          {"message", {{"text", body.value("text", "")}}}});
      sent.delay = delay_;
      return sent;
    }
    return SlackJson(404, {{"ok", false}, {"error", "unknown_method"}});
  }

  // The install's whole round trip: the state GET /v1/slack/install made,
  // and Slack's redirect back with a code.
  void Install(Api& api) {
    const auto start = api.Call("GET", "/v1/slack/install");
    ASSERT_EQ(start.status, 302) << start.body;
    const std::string state = QueryValue(*start.Header("location"), "state");
    const auto done = api.CallUnauthenticated(
        "GET", "/v1/slack/oauth/callback?code=good-code&state=" + core::PercentEncode(state), "",
        {});
    ASSERT_EQ(done.status, 201) << done.body;
  }

  json Notify(Api& api, std::int64_t user, const std::string& title) {
    const auto created = api.Call("POST", "/v1/notifications",
                                  {{"user_id", user},
                                   {"type", "task.due"},
                                   {"title", title},
                                   {"link", "/tasks/1"},
                                   {"channels", {"slack"}}});
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  }

  void PutAddress(Api& api, std::int64_t user, const std::string& address) {
    const auto put =
        api.Call("PUT", "/v1/users/" + std::to_string(user), {{"addresses", {{"slack", address}}}});
    ASSERT_EQ(put.status, 200) << put.body;
  }

  std::vector<FakeHttpServer::Request> Posts() const {
    std::vector<FakeHttpServer::Request> posts;
    for (const auto& request : slack_.requests()) {
      if (request.target == "/api/chat.postMessage") posts.push_back(request);
    }
    return posts;
  }

  void SetDelay(std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    delay_ = delay;
  }

  std::mutex mutex_;
  std::set<std::string> used_codes_;
  std::set<std::string> gone_;
  std::set<std::string> limited_;
  std::chrono::milliseconds delay_{0};
  int posted_ = 0;
  FakeHttpServer slack_{[this](const FakeHttpServer::Request& r) { return Slack(r); }};
};

TEST_F(SlackWorkspaceBlackBox, InstallsWithOAuthAndKeepsTheBotTokenSealed) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  EXPECT_EQ(api.CallUnauthenticated("GET", "/v1/slack/install", "", {}).status, 401);
  const auto start = api.Call("GET", "/v1/slack/install");
  ASSERT_EQ(start.status, 302) << start.body;
  const std::string location = start.Header("location").value_or("");
  EXPECT_TRUE(location.starts_with(slack_.url() + "/oauth/v2/authorize?")) << location;
  EXPECT_EQ(QueryValue(location, "client_id"), kClientId);
  EXPECT_EQ(QueryValue(location, "scope"), "chat:write,im:write,users:read,users:read.email");
  EXPECT_EQ(QueryValue(location, "redirect_uri"),
            "https://chopar.example.com/v1/slack/oauth/callback");
  EXPECT_EQ(ParseJsonOrDiscarded(start.body)["url"], location);
  const std::string state = QueryValue(location, "state");
  ASSERT_FALSE(state.empty());

  const auto callback = [&](const std::string& query) {
    return api.CallUnauthenticated("GET", "/v1/slack/oauth/callback?" + query, "", {});
  };
  // A forged or changed state, a refusal in Slack, a missing code: 400, and
  // nothing asked of Slack or stored.
  std::string forged = state;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  for (const auto& [query, field] : std::vector<std::pair<std::string, std::string>>{
           {"code=good-code&state=" + core::PercentEncode(forged), "state"},
           {"code=good-code&state=1.2.3", "state"},
           {"code=good-code", "state"},
           {"state=" + core::PercentEncode(state), "code"},
           {"error=access_denied&state=" + core::PercentEncode(state), "error"}}) {
    const auto refused = callback(query);
    EXPECT_EQ(refused.status, 400) << query << ": " << refused.body;
    EXPECT_EQ(ParseJsonOrDiscarded(refused.body)["error"]["field"], field) << refused.body;
  }
  EXPECT_EQ(slack_.request_count(), 0u);
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.slack_workspaces"), 0);

  const auto installed = callback("code=good-code&state=" + core::PercentEncode(state));
  ASSERT_EQ(installed.status, 201) << installed.body;
  const json workspace = ParseJsonOrDiscarded(installed.body);
  EXPECT_EQ(workspace["team_id"], kTeam);
  EXPECT_EQ(workspace["team_name"], "Acme");
  EXPECT_EQ(workspace["bot_user_id"], "U0BOT12345");
  EXPECT_EQ(installed.body.find("xoxb"), std::string::npos) << "the token never leaves";
  // Slack takes a code once.
  const auto again = callback("code=good-code&state=" + core::PercentEncode(state));
  EXPECT_EQ(again.status, 400) << again.body;
  EXPECT_EQ(ParseJsonOrDiscarded(again.body)["error"]["field"], "code");

  // At rest the token is sealed: its bytes are nowhere in the row.
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.slack_workspaces"), 1);
  EXPECT_EQ(db_->Count("SELECT position(convert_to('xoxb', 'UTF8') IN token_sealed) "
                       "FROM chopar.slack_workspaces"),
            0);
  EXPECT_EQ(db_->Count("SELECT octet_length(token_sealed) FROM chopar.slack_workspaces"),
            static_cast<std::int64_t>(std::string(kBotToken).size() + 29));

  const auto listed = api.Call("GET", "/v1/slack/workspaces");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json items = ParseJsonOrDiscarded(listed.body)["items"];
  ASSERT_EQ(items.size(), 1u) << listed.body;
  EXPECT_EQ(items[0]["team_id"], kTeam);
  EXPECT_TRUE(items[0]["installed_at"].get<std::string>().ends_with("Z"));
  EXPECT_EQ(listed.body.find("xoxb"), std::string::npos);
  EXPECT_EQ(listed.body.find("token"), std::string::npos);
}

TEST_F(SlackWorkspaceBlackBox, ConnectsByEmailPostsWithTheBotTokenAndForgetsAGoneConversation) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  const json connect = {{"team_id", kTeam}};
  // Before the install: the workspace is not known.
  ASSERT_EQ(api.Call("PUT", "/v1/users/1", {{"email", "ali@example.com"}, {"locale", "uz"}}).status,
            200);
  EXPECT_EQ(api.Call("POST", "/v1/users/1/slack/connect", connect).status, 404);
  Install(api);

  const auto connected = api.Call("POST", "/v1/users/1/slack/connect", connect);
  ASSERT_EQ(connected.status, 200) << connected.body;
  EXPECT_EQ(ParseJsonOrDiscarded(connected.body)["address"], std::string(kTeam) + "/U0ALI12345");
  EXPECT_EQ(ParseJsonOrDiscarded(connected.body)["slack_user_id"], "U0ALI12345");
  const json user = ParseJsonOrDiscarded(api.Call("GET", "/v1/users/1").body);
  EXPECT_EQ(user["addresses"]["slack"], std::string(kTeam) + "/U0ALI12345") << user.dump();

  // Who cannot be connected, and why.
  ASSERT_EQ(api.Call("PUT", "/v1/users/2", {{"email", "nobody@example.com"}}).status, 200);
  ASSERT_EQ(api.Call("PUT", "/v1/users/3", {{"locale", "en"}}).status, 200);
  EXPECT_EQ(api.Call("POST", "/v1/users/2/slack/connect", connect).status, 404);
  EXPECT_EQ(api.Call("POST", "/v1/users/3/slack/connect", connect).status, 409);
  EXPECT_EQ(api.Call("POST", "/v1/users/99/slack/connect", connect).status, 404);
  EXPECT_EQ(api.Call("POST", "/v1/users/1/slack/connect", {{"team_id", "T0OTHER999"}}).status, 404);
  EXPECT_EQ(api.Call("POST", "/v1/users/1/slack/connect", {{"team_id", "nope"}}).status, 400);
  EXPECT_EQ(api.Call("POST", "/v1/users/1/slack/connect", {{"team_id", kTeam}, {"x", 1}}).status,
            400);
  EXPECT_FALSE(
      ParseJsonOrDiscarded(api.Call("GET", "/v1/users/2").body)["addresses"].contains("slack"));

  // A post: the bot token, the user's id as the conversation, Block Kit.
  json sent = SettledNotification(api, Notify(api, 1, "Muddat yaqin"));
  json delivery = DeliveryOn(sent, "slack");
  EXPECT_EQ(delivery["status"], "sent") << sent.dump();
  const auto posts = Posts();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].headers.at("authorization"), std::string("Bearer ") + kBotToken);
  const json body = ParseJsonOrDiscarded(posts[0].body);
  EXPECT_EQ(body["channel"], "U0ALI12345");
  EXPECT_EQ(body["unfurl_links"], false);
  EXPECT_EQ(body["blocks"][0]["type"], "header");
  EXPECT_NE(posts[0].body.find("Muddat yaqin"), std::string::npos);
  EXPECT_NE(posts[0].body.find("https://chopar.example.com/tasks/1"), std::string::npos);
  const json listed =
      ParseJsonOrDiscarded(api.Call("GET", "/v1/deliveries?user_id=1&channel=slack").body)["items"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(listed[0]["provider_message_id"].get<std::string>().starts_with("1765000000."));

  // A channel Slack no longer finds: failed, the address removed, not chosen again.
  {
    std::lock_guard lock(mutex_);
    gone_.insert("C0GONE12345");
    limited_.insert("U0BUSY12345");
  }
  PutAddress(api, 4, std::string(kTeam) + "/C0GONE12345");
  json gone = SettledNotification(api, Notify(api, 4, "Ketdi"));
  EXPECT_EQ(DeliveryOn(gone, "slack")["status"], "failed") << gone.dump();
  EXPECT_NE(DeliveryOn(gone, "slack")["last_error"].get<std::string>().find("channel_not_found"),
            std::string::npos);
  EXPECT_FALSE(
      ParseJsonOrDiscarded(api.Call("GET", "/v1/users/4").body)["addresses"].contains("slack"));

  // A 429: the workspace rests for its Retry-After, then the post is sent.
  PutAddress(api, 5, std::string(kTeam) + "/U0BUSY12345");
  json busy = SettledNotification(api, Notify(api, 5, "Band"));
  EXPECT_EQ(DeliveryOn(busy, "slack")["status"], "sent") << busy.dump();
  EXPECT_EQ(DeliveryOn(busy, "slack")["attempts"], 2) << busy.dump();

  // Uninstalled: the token is gone, and so are the posts.
  EXPECT_EQ(api.Call("DELETE", std::string("/v1/slack/workspaces/") + kTeam).status, 204);
  EXPECT_EQ(api.Call("DELETE", std::string("/v1/slack/workspaces/") + kTeam).status, 404);
  const std::size_t posts_before = Posts().size();
  json after = SettledNotification(api, Notify(api, 1, "Yana"));
  EXPECT_EQ(DeliveryOn(after, "slack")["status"], "failed") << after.dump();
  EXPECT_NE(DeliveryOn(after, "slack")["last_error"].get<std::string>().find("not installed"),
            std::string::npos);
  EXPECT_EQ(Posts().size(), posts_before);
}

TEST_F(SlackWorkspaceBlackBox, TwoProcessesPostEachDeliveryOnceToASlackSlowerThanTheLease) {
  SetDelay(3000ms);
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"},
                                                  {"CHOPAR_LIMITS_HOURLY_SLACK", "1000"}};
  const int port_a = FreeLoopbackPort();
  const int port_b = FreeLoopbackPort();
  auto a = StartServe(port_a, "a.log", env);
  auto b = StartServe(port_b, "b.log", env);
  Api api_a(port_a, kApiKey);
  Api api_b(port_b, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api_a.Healthy() && api_b.Healthy(); }, 60s))
      << a->Output() << b->Output();
  Install(api_a);

  constexpr int kUsers = 12;
  for (int user = 1; user <= kUsers; ++user) {
    PutAddress(api_a, user, std::string(kTeam) + "/U0USER" + std::to_string(10000 + user));
  }
  std::vector<json> created;
  for (int i = 0; i < 36; ++i) {
    created.push_back(Notify(i % 2 == 0 ? api_a : api_b, 1 + i % kUsers, "n" + std::to_string(i)));
  }
  for (const json& c : created) {
    json settled = SettledNotification(api_a, c, 60s);
    EXPECT_EQ(DeliveryOn(settled, "slack")["status"], "sent") << settled.dump();
  }
  std::map<std::int64_t, int> per_delivery;
  std::set<std::int64_t> senders;
  for (const auto& post : Posts()) {
    if (post.delivery_id) ++per_delivery[*post.delivery_id];
    if (post.instance) senders.insert(*post.instance);
  }
  EXPECT_EQ(per_delivery.size(), created.size());
  for (const auto& [delivery, count] : per_delivery) EXPECT_EQ(count, 1) << "delivery " << delivery;
  EXPECT_EQ(senders.size(), 2u) << "both processes posted some";
}

TEST_F(SlackWorkspaceBlackBox, Kill9MidPostNeverPostsAgain) {
  const int port = FreeLoopbackPort();
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"}};
  auto serve = StartServe(port, "first.log", env);
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  Install(api);
  PutAddress(api, 1, std::string(kTeam) + "/U0SLOW12345");
  SetDelay(30000ms);  // the answer never comes before the kill
  json created = Notify(api, 1, "Muddat yaqin");
  ASSERT_TRUE(WaitUntil([&] { return Posts().size() == 1; }, 30s));
  serve->Signal(SIGKILL);
  serve->Wait(10s);
  SetDelay(0ms);

  auto restarted = StartServe(port, "second.log", env);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << restarted->Output();
  json settled = SettledNotification(api, created, 60s);
  json delivery = DeliveryOn(settled, "slack");
  EXPECT_EQ(delivery["status"], "failed") << settled.dump();
  EXPECT_NE(delivery["last_error"].get<std::string>().find("outcome unknown"), std::string::npos)
      << delivery.dump();
  EXPECT_EQ(Posts().size(), 1u) << "the post that may have arrived is never repeated";
}

TEST_F(SlackWorkspaceBlackBox, WithoutTheAppItsRoutesAnswer503AndTheSinkShowsAConversation) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, DatabaseEnv(kApiKey), "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_EQ(api.Call("GET", "/v1/slack/install").status, 503);
  EXPECT_EQ(
      api.CallUnauthenticated("GET", "/v1/slack/oauth/callback?code=a&state=b", "", {}).status,
      503);
  EXPECT_EQ(api.Call("GET", "/v1/slack/workspaces").status, 503);

  for (const char* refused : {"T0/U0", "T0123ABCD/X0456EFGH", "t0123abcd/u0456efgh"}) {
    const auto put = api.Call("PUT", "/v1/users/1", {{"addresses", {{"slack", refused}}}});
    EXPECT_EQ(put.status, 400) << refused << ": " << put.body;
    EXPECT_EQ(ParseJsonOrDiscarded(put.body)["error"]["field"], "addresses.slack") << put.body;
  }
  PutAddress(api, 1, "T0123ABCD/U0456EFGH");
  SettledNotification(api, Notify(api, 1, "Hisobot tayyor"));
  const json messages = ParseJsonOrDiscarded(api.Call("GET", "/v1/sink/messages?user_id=1").body);
  bool found = false;
  for (const json& m : messages["items"]) {
    if (m["channel"] != "slack") continue;
    found = true;
    EXPECT_EQ(m["address"], "T0123ABCD/U0456EFGH");
    EXPECT_NE(m.dump().find("Hisobot tayyor"), std::string::npos) << m.dump();
  }
  EXPECT_TRUE(found) << messages.dump();
  EXPECT_EQ(slack_.request_count(), 0u);
}

}  // namespace
}  // namespace chopar
