// GET /v1/inbox/stream's `counts` and `state` events (docs/api.md "Live
// updates"): every change of an item's state, made through any server on
// the database, reaches the user's open streams.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/time_format.hpp"
#include "http/http_server_fixture.hpp"
#include "workflow/engine/snooze_returner.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

std::vector<json> Data(const std::vector<SseEvent>& events, const std::string& name) {
  std::vector<json> out;
  for (const auto& e : events) {
    if (e.event == name) out.push_back(json::parse(e.data));
  }
  return out;
}

// A second server on the same database, with its own pool and services: a
// change made through it reaches the first server's streams the way one of
// another process does, through NOTIFY.
class SseStateTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    other_pool_ = std::make_unique<db::Pool>(db_->url(), 4);
    other_users_ = std::make_unique<hub::UserService>(*other_pool_, hub::UserService::Options{});
    other_notify_ = std::make_unique<hub::NotifyService>(*other_pool_, clock_, other_metrics_);
    other_inbox_ = std::make_unique<hub::InboxService>(*other_pool_);
    other_ = std::make_unique<Server>(
        DefaultSettings(),
        Dependencies{*other_pool_, *other_notify_, *other_users_, *other_inbox_, other_metrics_});
    other_->Start();
    other_client_ = std::make_unique<HttpClient>(other_->port());
    PutUser(1, {{"email", "aziz@example.uz"}});
  }
  void TearDown() override {
    other_.reset();
    HttpServerPgTest::TearDown();
  }

  std::int64_t Create(json extra = json::object()) {
    const auto response = Notify(1, std::move(extra));
    EXPECT_EQ(response.status, 201) << response.body;
    return response.Json()["id"];
  }
  // A change through the other server, by the subscriber token.
  void Change(const std::string& change, const json& body) {
    const auto response =
        other_client_->Post("/v1/inbox/" + change + "?token=" + Token(1), body.dump());
    ASSERT_EQ(response.status, 200) << response.body;
  }
  // Opens user 1's stream and waits for its opening events.
  int OpenStream(SseGroup& streams, const std::string& query = "") {
    const int s = streams.Open("/v1/inbox/stream?token=" + Token(1) + query);
    EXPECT_TRUE(streams.RunUntil([&] { return !Data(streams.Events(s), "counts").empty(); }))
        << streams.Received(s);
    return s;
  }
  // Waits until the stream has `n` state events; returns them.
  std::vector<json> States(SseGroup& streams, int s, std::size_t n) {
    EXPECT_TRUE(streams.RunUntil([&] { return Data(streams.Events(s), "state").size() >= n; }))
        << streams.Received(s);
    return Data(streams.Events(s), "state");
  }

  core::MetricsRegistry other_metrics_;
  std::unique_ptr<db::Pool> other_pool_;
  std::unique_ptr<hub::UserService> other_users_;
  std::unique_ptr<hub::NotifyService> other_notify_;
  std::unique_ptr<hub::InboxService> other_inbox_;
  std::unique_ptr<Server> other_;
  std::unique_ptr<HttpClient> other_client_;
};

TEST_F(SseStateTest, CountsOnOpenAfterTheUnreadCountAndWhenEitherChanges) {
  const std::int64_t a = Create();
  Create();
  SseGroup streams(server_->port());
  const int s = OpenStream(streams);
  const auto opening = streams.Events(s);
  ASSERT_GE(opening.size(), 2u);
  EXPECT_EQ(opening[0].event, "unread_count");
  EXPECT_EQ(json::parse(opening[0].data), (json{{"count", 2}}));
  EXPECT_EQ(opening[1].event, "counts");
  EXPECT_EQ(json::parse(opening[1].data), (json{{"unseen", 2}, {"unread", 2}}));

  // Seen changes only the unseen count: a `counts` event, no `unread_count`.
  Change("seen", {{"ids", {a}}});
  ASSERT_TRUE(streams.RunUntil([&] {
    const auto counts = Data(streams.Events(s), "counts");
    return counts.back() == json{{"unseen", 1}, {"unread", 2}};
  })) << streams.Received(s);
  EXPECT_EQ(Data(streams.Events(s), "unread_count").size(), 1u);
  Change("read", {{"ids", {a}}});
  ASSERT_TRUE(streams.RunUntil([&] {
    return Data(streams.Events(s), "counts").back() == json{{"unseen", 1}, {"unread", 1}} &&
           Data(streams.Events(s), "unread_count").back() == json{{"count", 1}};
  })) << streams.Received(s);
}

TEST_F(SseStateTest, EveryChangeFromAnotherServerIsAStateEvent) {
  const std::int64_t a = Create();
  const std::int64_t b = Create();
  SseGroup streams(server_->port());
  const int s = OpenStream(streams);

  Change("seen", {{"ids", {a, b}}});
  Change("read", {{"ids", {b}}});
  Change("unread", {{"ids", {b}}});
  Change("archive", {{"ids", {a}}});
  Change("unarchive", {{"all", true}});
  const std::string until = core::FormatRfc3339(
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
      std::chrono::hours(24));
  Change("snooze", {{"ids", {b}}, {"until", until}});
  // The application's own call, by the server key.
  ASSERT_EQ(
      other_client_->Post("/v1/users/1/notifications/unsnooze", json{{"ids", {b}}}.dump(), {kAuth})
          .status,
      200);
  const auto states = States(streams, s, 7);
  ASSERT_EQ(states.size(), 7u) << streams.Received(s);
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected = {
      {"seen", {a, b}},    {"read", {b}},    {"unread", {b}},   {"archived", {a}},
      {"unarchived", {a}}, {"snoozed", {b}}, {"unsnoozed", {b}}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(states[i]["change"], expected[i].first) << states[i];
    EXPECT_EQ(states[i]["ids"], expected[i].second) << states[i];
    EXPECT_TRUE(states[i]["at"].is_string()) << states[i];
    EXPECT_EQ(states[i].contains("snoozed_until"), expected[i].first == "snoozed") << states[i];
  }
  EXPECT_EQ(states[5]["snoozed_until"], until);
  // An item that comes back comes with itself: no refetch needed.
  ASSERT_EQ(states[6]["notifications"].size(), 1u) << states[6];
  EXPECT_EQ(states[6]["notifications"][0]["id"], b);
  EXPECT_TRUE(states[6]["notifications"][0]["snoozed_until"].is_null());
  // The notification events are as before: none for a state change.
  EXPECT_TRUE(Data(streams.Events(s), "notification").empty());
}

TEST_F(SseStateTest, ABulkChangeTooLargeToListIsAllWithItsFilters) {
  std::vector<json> batch(
      1001 / 2 + 1,
      {{"user_id", 1}, {"type", "task.due"}, {"title", "t"}, {"body", "b"}, {"category", "tasks"}});
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(client()
                  .Post("/v1/notifications/batch", json{{"notifications", batch}}.dump(), {kAuth})
                  .status,
              200);
  }
  SseGroup streams(server_->port());
  const int s = OpenStream(streams);
  Change("seen", {{"all", true}, {"category", "tasks"}});
  const auto states = States(streams, s, 1);
  EXPECT_EQ(states[0]["change"], "seen");
  EXPECT_EQ(states[0]["all"], true);
  EXPECT_EQ(states[0]["category"], json::array({"tasks"}));
  EXPECT_FALSE(states[0].contains("ids"));
  ASSERT_TRUE(streams.RunUntil([&] {
    return Data(streams.Events(s), "counts").back() == json{{"unseen", 0}, {"unread", 1002}};
  })) << streams.Received(s);
}

// The snooze returner (another process's, as far as the stream can tell)
// brings an item back: the open stream hears it at that moment, with the
// item, and the counts that now include it.
TEST_F(SseStateTest, AnItemBackFromItsSnoozeReachesTheOpenStream) {
  const std::int64_t a = Create();
  Create();
  Change("snooze", {{"ids", {a}}, {"minutes", 30}});
  SseGroup streams(server_->port());
  const int s = OpenStream(streams);
  EXPECT_EQ(Data(streams.Events(s), "counts").back(), (json{{"unseen", 1}, {"unread", 1}}));

  core::SimulatedClock clock(core::SystemClock().Now() + std::chrono::minutes(31));
  core::MetricsRegistry metrics;
  workflow::engine::SnoozeReturner returner(*other_pool_, clock, metrics);
  ASSERT_EQ(returner.RunOnce(), 1);
  const auto states = States(streams, s, 1);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0]["change"], "unsnoozed");
  EXPECT_EQ(states[0]["ids"], json::array({a}));
  ASSERT_EQ(states[0]["notifications"].size(), 1u);
  EXPECT_EQ(states[0]["notifications"][0]["id"], a);
  EXPECT_TRUE(states[0]["notifications"][0]["read_at"].is_null());
  ASSERT_TRUE(streams.RunUntil([&] {
    return Data(streams.Events(s), "counts").back() == json{{"unseen", 2}, {"unread", 2}};
  })) << streams.Received(s);
}

}  // namespace
}  // namespace chopar::http::testing
