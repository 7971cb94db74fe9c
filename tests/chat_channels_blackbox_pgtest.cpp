// Black-box, the chat channels: the built `chopar serve` with its Discord,
// Microsoft Teams and Slack providers (not the sink) posting to a fake of each
// service on 127.0.0.1 that answers as it does. For each channel: a post
// reaches the user's webhook; a webhook the service reports deleted is
// removed from the user and not chosen again; a 429 is retried after the
// service's delay; two processes racing send each delivery once, even to a
// service slower than the lease; `kill -9` mid-post never posts again;
// preferences, quiet hours and the hourly limit hold; the sink shows what
// the user would have seen.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "blackbox_support.hpp"
#include "core/json.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_database.hpp"

namespace chopar {
namespace {

using core::ParseJsonOrDiscarded;
using testing::Api;
using testing::ChildProcess;
using testing::DeliveriesSettled;
using testing::DeliveryOn;
using testing::FakeHttpServer;
using testing::FreeLoopbackPort;
using testing::QuietHoursAroundNow;
using testing::SettledNotification;
using testing::WaitUntil;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kApiKey[] = "chat-key";

// The answer each service gives a post it accepts.
FakeHttpServer::Response Accepted(const std::string& channel, std::int64_t id) {
  FakeHttpServer::Response response;
  if (channel == "discord") {
    response.status = 200;
    response.body = json({{"id", std::to_string(1180000000000000000 + id)}, {"type", 0}}).dump();
  } else {
    response.status = 200;
    response.content_type = "text/plain";
    response.body = channel == "slack" ? "ok" : "1";
  }
  return response;
}

// The answer each service gives a post to a webhook that was deleted.
FakeHttpServer::Response Deleted(const std::string& channel) {
  FakeHttpServer::Response response;
  if (channel == "discord") {
    response.status = 404;
    response.body = R"({"message": "Unknown Webhook", "code": 10015})";
  } else if (channel == "slack") {
    response.status = 404;
    response.content_type = "text/plain";
    response.body = "no_service";
  } else {
    response.status = 410;
    response.content_type = "text/plain";
    response.body = "Connector configuration not found";
  }
  return response;
}

FakeHttpServer::Response RateLimited(const std::string& channel) {
  FakeHttpServer::Response response;
  response.status = 429;
  response.headers["Retry-After"] = "1";
  if (channel == "discord") {
    response.body =
        R"({"message": "You are being rate limited.", "retry_after": 0.8, "global": false})";
  } else {
    response.content_type = "text/plain";
    if (channel == "slack") response.body = "rate_limited";
  }
  return response;
}

// The channel under test is the parameter: "discord", "msteams" or "slack".
class ChatChannelsBlackBox : public testing::DatabaseBlackBox,
                             public ::testing::WithParamInterface<std::string> {
 protected:
  const std::string& channel() const { return GetParam(); }
  std::string Upper() const {
    std::string upper = channel();
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return upper;
  }

  // `chopar serve` with the channel's real provider pointed at the fake.
  std::unique_ptr<ChildProcess> StartServe(int port, const std::string& log,
                                           std::map<std::string, std::string> more = {}) {
    more.emplace("CHOPAR_CHANNELS_" + Upper() + "_PROVIDER", channel());
    more.emplace("CHOPAR_CHANNELS_" + Upper() + "_ALLOW_LOCAL_WEBHOOKS", "true");
    return Start("serve", port, DatabaseEnv(kApiKey, std::move(more)), log);
  }

  // The fake service: a webhook path in `deleted_` is gone, `limited_` ones
  // answer 429 to their first post; every other post is accepted after
  // `delay_`. Each post is recorded by the delivery it carries.
  FakeHttpServer::Response Service(const FakeHttpServer::Request& request) {
    const std::string path = request.target.substr(0, request.target.find('?'));
    std::lock_guard lock(mutex_);
    if (request.method != "POST" || request.headers.count("content-type") == 0 ||
        request.headers.at("content-type") != "application/json" ||
        !ParseJsonOrDiscarded(request.body).is_object()) {
      FakeHttpServer::Response bad;
      bad.status = 400;
      bad.body = R"({"message": "Cannot send an empty message", "code": 50006})";
      return bad;
    }
    if (deleted_.contains(path)) return Deleted(channel());
    if (limited_.erase(path) > 0) return RateLimited(channel());
    FakeHttpServer::Response response = Accepted(channel(), ++accepted_);
    response.delay = delay_;
    return response;
  }

  void SetDelay(std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    delay_ = delay;
  }

  std::string Webhook(const std::string& name) const {
    const std::string prefix = channel() == "discord" ? "/api/webhooks/1/"
                               : channel() == "slack" ? "/services/T0/B0/"
                                                      : "/webhookb2/";
    return service_.url() + prefix + name;
  }
  std::string PathOf(const std::string& name) const {
    return Webhook(name).substr(service_.url().size());
  }

  // Posts the service received for each delivery id.
  std::map<std::int64_t, int> PostsByDelivery() const {
    std::map<std::int64_t, int> posts;
    for (const auto& request : service_.requests()) {
      if (request.delivery_id) ++posts[*request.delivery_id];
    }
    return posts;
  }

  void PutWebhook(Api& api, std::int64_t user, const std::string& name,
                  json more = json::object()) {
    more["addresses"] = {{channel(), Webhook(name)}};
    const auto put = api.Call("PUT", "/v1/users/" + std::to_string(user), more);
    ASSERT_EQ(put.status, 200) << put.body;
  }

  json Notify(Api& api, std::int64_t user, const std::string& title, json more = json::object()) {
    more["user_id"] = user;
    more["type"] = more.value("type", "task.due");
    more["title"] = title;
    more["link"] = "/tasks/1";
    const auto created = api.Call("POST", "/v1/notifications", more);
    EXPECT_EQ(created.status, 201) << created.body;
    return ParseJsonOrDiscarded(created.body);
  }

  std::mutex mutex_;
  std::set<std::string> deleted_;
  std::set<std::string> limited_;
  std::chrono::milliseconds delay_{0};
  std::int64_t accepted_ = 0;
  FakeHttpServer service_{[this](const FakeHttpServer::Request& r) { return Service(r); }};
};

TEST_P(ChatChannelsBlackBox, PostsToTheWebhookRetriesA429AndForgetsADeletedWebhook) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  EXPECT_NE(serve->Output().find(channel() + "=" + channel()), std::string::npos)
      << serve->Output();
  {
    std::lock_guard lock(mutex_);
    deleted_.insert(PathOf("gone"));
    limited_.insert(PathOf("busy"));
  }
  PutWebhook(api, 1, "live", {{"locale", "uz"}});
  PutWebhook(api, 2, "gone");
  PutWebhook(api, 3, "busy");

  json to_live = Notify(api, 1, "Muddat yaqin", {{"channels", {channel()}}});
  json to_gone = Notify(api, 2, "Muddat yaqin", {{"channels", {channel()}}});
  json to_busy = Notify(api, 3, "Muddat yaqin", {{"channels", {channel()}}});
  EXPECT_EQ(to_live["channels"], json({channel()}));

  json live = SettledNotification(api, to_live);
  json delivered = DeliveryOn(live, channel());
  EXPECT_EQ(delivered["status"], "sent") << live.dump();
  const auto live_posts = service_.requests();
  ASSERT_FALSE(live_posts.empty());
  bool found = false;
  for (const auto& post : live_posts) {
    if (post.target.substr(0, post.target.find('?')) != PathOf("live")) continue;
    found = true;
    EXPECT_NE(post.body.find("Muddat yaqin"), std::string::npos) << post.body;
    EXPECT_NE(post.body.find("/tasks/1"), std::string::npos) << "the link, absolute";
    if (channel() == "discord") {
      EXPECT_EQ(post.target, PathOf("live") + "?wait=true");
    }
  }
  EXPECT_TRUE(found);
  if (channel() == "discord") {
    const json items = ParseJsonOrDiscarded(
        api.Call("GET", "/v1/deliveries?user_id=1&channel=discord").body)["items"];
    ASSERT_EQ(items.size(), 1u);
    EXPECT_TRUE(items[0]["provider_message_id"].get<std::string>().starts_with("118"))
        << "the message id Discord answered";
  }

  // The deleted webhook: failed as address gone, and removed from the user.
  json gone = SettledNotification(api, to_gone);
  EXPECT_EQ(DeliveryOn(gone, channel())["status"], "failed") << gone.dump();
  json user = ParseJsonOrDiscarded(api.Call("GET", "/v1/users/2").body);
  EXPECT_FALSE(user["addresses"].contains(channel())) << user.dump();
  EXPECT_EQ(user["channels"][channel()], false) << user.dump();
  json again = Notify(api, 2, "Ertaga");
  EXPECT_EQ(std::count(again["channels"].begin(), again["channels"].end(), channel()), 0)
      << again.dump();

  // The 429: tried again after the service's delay, then sent.
  json busy = SettledNotification(api, to_busy);
  json retried = DeliveryOn(busy, channel());
  EXPECT_EQ(retried["status"], "sent") << busy.dump();
  EXPECT_EQ(retried["attempts"], 2) << busy.dump();
}

TEST_P(ChatChannelsBlackBox, TwoProcessesSendEachDeliveryOnceToAServiceSlowerThanTheLease) {
  // Every post is answered 3 s later; the lease is 2 s (its renewals keep
  // it), and two processes claim from the same queue, four deliveries a
  // claim: one process's first claim cannot take the whole queue, so both
  // take part however the two are scheduled.
  SetDelay(3000ms);
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"},
                                                  {"CHOPAR_DELIVERY_BATCH", "4"},
                                                  {"CHOPAR_LIMITS_HOURLY_" + Upper(), "1000"}};
  const int port_a = FreeLoopbackPort();
  const int port_b = FreeLoopbackPort();
  auto a = StartServe(port_a, "a.log", env);
  auto b = StartServe(port_b, "b.log", env);
  Api api_a(port_a, kApiKey);
  Api api_b(port_b, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api_a.Healthy() && api_b.Healthy(); }, 60s))
      << a->Output() << b->Output();

  constexpr int kUsers = 12;
  for (int user = 1; user <= kUsers; ++user) PutWebhook(api_a, user, "u" + std::to_string(user));
  std::vector<json> created;
  for (int i = 0; i < 36; ++i) {
    Api& api = i % 2 == 0 ? api_a : api_b;
    created.push_back(
        Notify(api, 1 + i % kUsers, "n" + std::to_string(i), {{"channels", {channel()}}}));
  }
  for (const json& c : created) {
    json settled = SettledNotification(api_a, c, 60s);
    EXPECT_EQ(DeliveryOn(settled, channel())["status"], "sent") << settled.dump();
  }
  const auto posts = PostsByDelivery();
  EXPECT_EQ(posts.size(), created.size());
  for (const auto& [delivery, count] : posts) EXPECT_EQ(count, 1) << "delivery " << delivery;
  std::set<std::int64_t> senders;
  for (const auto& request : service_.requests()) {
    if (request.instance) senders.insert(*request.instance);
  }
  EXPECT_EQ(senders.size(), 2u) << "both processes sent some";
}

TEST_P(ChatChannelsBlackBox, Kill9MidPostNeverPostsAgain) {
  SetDelay(30000ms);  // the answer never comes before the kill
  const int port = FreeLoopbackPort();
  const std::map<std::string, std::string> env = {{"CHOPAR_DELIVERY_LEASE_SECONDS", "2"}};
  auto serve = StartServe(port, "first.log", env);
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();
  PutWebhook(api, 1, "slow");
  json created = Notify(api, 1, "Muddat yaqin", {{"channels", {channel()}}});
  ASSERT_TRUE(WaitUntil([&] { return service_.request_count() == 1; }, 30s));
  serve->Signal(SIGKILL);
  serve->Wait(10s);
  SetDelay(0ms);

  auto restarted = StartServe(port, "second.log", env);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << restarted->Output();
  json settled = SettledNotification(api, created, 60s);
  json delivery = DeliveryOn(settled, channel());
  EXPECT_EQ(delivery["status"], "failed") << settled.dump();
  EXPECT_NE(delivery["last_error"].get<std::string>().find("outcome unknown"), std::string::npos)
      << delivery.dump();
  EXPECT_EQ(service_.request_count(), 1u) << "the post that may have arrived is never repeated";
}

TEST_P(ChatChannelsBlackBox, PreferencesQuietHoursAndTheHourlyLimitHold) {
  const int port = FreeLoopbackPort();
  auto serve = StartServe(port, "serve.log", {{"CHOPAR_LIMITS_HOURLY_" + Upper(), "2"}});
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  // User 1 turned the channel off for one type and for one category.
  PutWebhook(api, 1, "prefs",
             {{"preferences",
               {{"types", {{"task.muted", {{channel(), false}}}}},
                {"categories", {{"marketing", {{channel(), false}}}}}}}});
  EXPECT_EQ(Notify(api, 1, "a", {{"type", "task.muted"}})["channels"].size(), 0u);
  EXPECT_EQ(
      Notify(api, 1, "b", {{"type", "promo.sale"}, {"category", "marketing"}})["channels"].size(),
      0u);
  EXPECT_EQ(Notify(api, 1, "c", {{"type", "task.due"}})["channels"], json({channel()}));

  // User 2 is in quiet hours from an hour ago to two hours from now (UTC):
  // the delivery waits, nothing is posted.
  PutWebhook(api, 2, "quiet", {{"quiet_hours", QuietHoursAroundNow()}, {"timezone", "UTC"}});
  json quiet = Notify(api, 2, "q", {{"channels", {channel()}}});
  json waiting;
  ASSERT_TRUE(WaitUntil(
      [&] {
        waiting = DeliveryOn(
            ParseJsonOrDiscarded(api.Call("GET", "/v1/notifications/" + quiet["id"].dump()).body),
            channel());
        return waiting.is_object() && waiting["last_error"].is_string() &&
               waiting["last_error"].get<std::string>().starts_with("quiet hours until");
      },
      30s))
      << waiting.dump();
  EXPECT_EQ(waiting["status"], "queued");

  // User 3: the hourly limit of 2 for the channel skips the third.
  PutWebhook(api, 3, "limited");
  std::vector<json> sent;
  for (int i = 0; i < 3; ++i) {
    sent.push_back(SettledNotification(
        api, Notify(api, 3, "h" + std::to_string(i), {{"channels", {channel()}}})));
  }
  EXPECT_EQ(DeliveryOn(sent[0], channel())["status"], "sent");
  EXPECT_EQ(DeliveryOn(sent[1], channel())["status"], "sent");
  EXPECT_EQ(DeliveryOn(sent[2], channel())["status"], "skipped") << sent[2].dump();
  EXPECT_EQ(DeliveryOn(sent[2], channel())["last_error"], "hourly limit 2");

  std::size_t to_quiet_or_prefs = 0;
  for (const auto& request : service_.requests()) {
    const std::string path = request.target.substr(0, request.target.find('?'));
    if (path == PathOf("quiet")) ++to_quiet_or_prefs;
  }
  EXPECT_EQ(to_quiet_or_prefs, 0u);
}

TEST_P(ChatChannelsBlackBox,
       WithoutAProviderTheSinkShowsWhatTheUserWouldHaveSeenAndUrlsAreChecked) {
  const int port = FreeLoopbackPort();
  auto serve = Start("serve", port, DatabaseEnv(kApiKey), "serve.log");
  Api api(port, kApiKey);
  ASSERT_TRUE(WaitUntil([&] { return api.Healthy(); }, 60s)) << serve->Output();

  // Without allow_local_webhooks only public https:// URLs are addresses.
  for (const std::string& refused :
       {Webhook("x"), std::string("https://127.0.0.1/hook"),
        std::string("https://169.254.169.254/latest"), std::string("not a url")}) {
    const auto put = api.Call("PUT", "/v1/users/1", {{"addresses", {{channel(), refused}}}});
    EXPECT_EQ(put.status, 400) << refused << ": " << put.body;
    EXPECT_EQ(ParseJsonOrDiscarded(put.body)["error"]["field"], "addresses." + channel())
        << put.body;
  }
  const std::string webhook = channel() == "discord" ? "https://discord.com/api/webhooks/123/abc"
                              : channel() == "slack"
                                  ? "https://hooks.slack.com/services/T0/B0/abc"
                                  : "https://acme.webhook.office.com/webhookb2/abc";
  const auto put = api.Call("PUT", "/v1/users/1", {{"addresses", {{channel(), webhook}}}});
  ASSERT_EQ(put.status, 200) << put.body;

  json created = Notify(api, 1, "Hisobot tayyor", {{"body", "Haftalik hisobot"}});
  EXPECT_NE(std::count(created["channels"].begin(), created["channels"].end(), channel()), 0)
      << created.dump();
  SettledNotification(api, created);
  const json messages = ParseJsonOrDiscarded(api.Call("GET", "/v1/sink/messages?user_id=1").body);
  bool found = false;
  for (const json& m : messages["items"]) {
    if (m["channel"] != channel()) continue;
    found = true;
    EXPECT_EQ(m["address"], webhook);
    EXPECT_NE(m.dump().find("Hisobot tayyor"), std::string::npos) << m.dump();
  }
  EXPECT_TRUE(found) << messages.dump();
  EXPECT_EQ(service_.request_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Chat, ChatChannelsBlackBox,
                         ::testing::Values("discord", "msteams", "slack"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace chopar
