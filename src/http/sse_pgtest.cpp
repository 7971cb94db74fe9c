// GET /v1/inbox/stream: Server-Sent Events woken through LISTEN/NOTIFY.
#include <gtest/gtest.h>

#include <algorithm>

#include "http/http_server_fixture.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;

bool HasEvent(const std::vector<SseEvent>& events, const std::string& name, const json& data) {
  return std::any_of(events.begin(), events.end(), [&](const SseEvent& e) {
    return e.event == name && json::parse(e.data) == data;
  });
}

std::vector<SseEvent> Named(const std::vector<SseEvent>& events, const std::string& name) {
  std::vector<SseEvent> out;
  std::copy_if(events.begin(), events.end(), std::back_inserter(out),
               [&](const SseEvent& e) { return e.event == name; });
  return out;
}

class SseTest : public HttpServerPgTest {
 protected:
  std::string StreamPath(std::int64_t user) { return "/v1/inbox/stream?token=" + Token(user); }
};

TEST_F(SseTest, UnreadCountOnConnectThenEachNewNotification) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  PutUser(2, {{"email", "dilnoza@example.uz"}});
  ASSERT_EQ(Notify(1).status, 201);

  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(1));
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); })) << streams.Received(s);
  EXPECT_EQ(streams.Status(s), 200);
  EXPECT_EQ(streams.ContentType(s), "text/event-stream");
  const auto first = streams.Events(s).front();
  EXPECT_EQ(first.event, "unread_count");
  EXPECT_EQ(json::parse(first.data), (json{{"count", 1}}));

  // Another user's notification first, then this user's: only the latter arrives.
  ASSERT_EQ(Notify(2, {{"title", "not yours"}}).status, 201);
  const auto created = Notify(1, {{"title", "Yangi"}});
  ASSERT_EQ(created.status, 201);
  const std::int64_t id = created.Json()["id"];
  ASSERT_TRUE(streams.RunUntil([&] {
    return HasEvent(streams.Events(s), "unread_count", {{"count", 2}}) &&
           !Named(streams.Events(s), "notification").empty();
  })) << streams.Received(s);
  const auto notifications = Named(streams.Events(s), "notification");
  ASSERT_EQ(notifications.size(), 1u) << streams.Received(s);
  const json data = json::parse(notifications[0].data);
  EXPECT_EQ(data["id"], id);
  EXPECT_EQ(data["title"], "Yangi");
  EXPECT_EQ(data["user_id"], 1);
  EXPECT_EQ(notifications[0].id, std::to_string(id))
      << "so a reconnecting browser sends Last-Event-ID";

  // Marking read changes the count: a new unread_count event.
  ASSERT_EQ(client().Post("/v1/inbox/read?token=" + Token(1), R"({"all": true})").status, 200);
  ASSERT_TRUE(streams.RunUntil([&] {
    return HasEvent(streams.Events(s), "unread_count", {{"count", 0}});
  })) << streams.Received(s);
}

// ?tenant=: the bell of one tenant's application hears that tenant's
// notifications only, and counts only theirs.
TEST_F(SseTest, AStreamOfOneTenantSendsAndCountsThatTenantsOnly) {
  db_->Scalar(
      "INSERT INTO chopar.tenants (key, name) VALUES ('acme', 'Acme'), ('globex', 'Globex')");
  PutUser(1, {{"email", "aziz@example.uz"}, {"tenants", {"acme", "globex"}}});
  ASSERT_EQ(Notify(1, {{"tenant", "acme"}}).status, 201);
  ASSERT_EQ(Notify(1).status, 201);

  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(1) + "&tenant=acme");
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); })) << streams.Received(s);
  EXPECT_EQ(json::parse(streams.Events(s).front().data), (json{{"count", 1}}));

  ASSERT_EQ(Notify(1, {{"tenant", "globex"}, {"title", "not this bell's"}}).status, 201);
  ASSERT_EQ(Notify(1, {{"title", "nor this"}}).status, 201);
  const auto created = Notify(1, {{"tenant", "acme"}, {"title", "Acme's"}});
  ASSERT_EQ(created.status, 201);
  ASSERT_TRUE(streams.RunUntil([&] {
    return HasEvent(streams.Events(s), "unread_count", {{"count", 2}}) &&
           !Named(streams.Events(s), "notification").empty();
  })) << streams.Received(s);
  const auto notifications = Named(streams.Events(s), "notification");
  ASSERT_EQ(notifications.size(), 1u) << streams.Received(s);
  EXPECT_EQ(json::parse(notifications[0].data)["title"], "Acme's");
  EXPECT_EQ(json::parse(notifications[0].data)["tenant"], "acme");
}

TEST_F(SseTest, TokenAsBearerHeaderWorksToo) {
  SseGroup streams(server_->port());
  const int s = streams.Open("/v1/inbox/stream", {"Authorization: Bearer " + Token(7)});
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); }));
  EXPECT_TRUE(HasEvent(streams.Events(s), "unread_count", {{"count", 0}}));
  const int refused =
      streams.Open("/v1/inbox/stream",
                   {"Authorization: Bearer " + MakeSubscriberToken("x", 7, 0, 4'102'444'800)});
  ASSERT_TRUE(streams.RunUntil([&] { return streams.Finished(refused); }));
  EXPECT_EQ(streams.Status(refused), 401);
}

TEST_F(SseTest, QuietStreamsGetHeartbeats) {
  auto settings = DefaultSettings();
  settings.sse_heartbeat = std::chrono::milliseconds(50);
  StartServer(settings);
  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(3));
  ASSERT_TRUE(streams.RunUntil([&] { return streams.Comments(s) >= 2; })) << streams.Received(s);
  EXPECT_NE(streams.Received(s).find(": ping\n\n"), std::string::npos);
}

TEST_F(SseTest, LastEventIdSendsWhatWasMissed) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  std::vector<std::int64_t> ids;
  for (const char* title : {"a", "b", "c"})
    ids.push_back(Notify(1, {{"title", title}}).Json()["id"]);
  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(1), {"Last-Event-ID: " + std::to_string(ids[0])});
  ASSERT_TRUE(streams.RunUntil([&] {
    return Named(streams.Events(s), "notification").size() == 2;
  })) << streams.Received(s);
  const auto missed = Named(streams.Events(s), "notification");
  EXPECT_EQ(json::parse(missed[0].data)["title"], "b");
  EXPECT_EQ(json::parse(missed[1].data)["title"], "c");
}

// A transaction that drew a smaller id commits after a larger one was sent
// (a scheduler's firing written ahead of its instant, a long batch): the
// stream still sends it, once, and its `id:` stays the largest sent, where a
// reconnection resumes.
TEST_F(SseTest, ANotificationCommittedAfterALargerOneIsSentOnce) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(1));
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); }));

  auto held = db_->Connect();
  held.ExecScript(
      "BEGIN; INSERT INTO chopar.notifications (user_id, type, title) "
      "VALUES (1, 'task.due', 'held'); SELECT pg_notify('chopar_inbox', '1')");
  const std::int64_t later = Notify(1, {{"title", "later"}}).Json()["id"];
  ASSERT_TRUE(streams.RunUntil([&] {
    return Named(streams.Events(s), "notification").size() == 1;
  })) << streams.Received(s);
  held.ExecScript("COMMIT");
  ASSERT_TRUE(streams.RunUntil([&] {
    return Named(streams.Events(s), "notification").size() == 2;
  })) << streams.Received(s);
  const std::int64_t last = Notify(1, {{"title", "last"}}).Json()["id"];
  ASSERT_TRUE(streams.RunUntil([&] {
    return Named(streams.Events(s), "notification").size() >= 3;
  })) << streams.Received(s);
  ASSERT_TRUE(streams.RunUntil([&] {
    return HasEvent(streams.Events(s), "unread_count", {{"count", 3}});
  })) << streams.Received(s);

  const auto sent = Named(streams.Events(s), "notification");
  ASSERT_EQ(sent.size(), 3u) << streams.Received(s);
  EXPECT_EQ(json::parse(sent[0].data)["title"], "later");
  EXPECT_EQ(json::parse(sent[1].data)["title"], "held");
  EXPECT_LT(json::parse(sent[1].data)["id"].get<std::int64_t>(), later);
  EXPECT_EQ(sent[1].id, std::to_string(later));
  EXPECT_EQ(json::parse(sent[2].data)["title"], "last");
  EXPECT_EQ(sent[2].id, std::to_string(last));
}

// The only wake-up source here is the listener reconnecting: the row is
// inserted without NOTIFY, then the LISTEN connection is killed.
TEST_F(SseTest, ListenerReconnectWakesEveryStreamSoNothingIsMissed) {
  PutUser(1, {{"email", "aziz@example.uz"}});
  // The wake-up after the first LISTEN is over before the stream exists.
  ASSERT_TRUE(Eventually([&] { return server_->listener_connections() >= 1; }));
  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(1));
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); }));

  db_->Scalar(
      "INSERT INTO chopar.notifications (user_id, type, title) VALUES (1, 'task.due', 'silent')");
  const auto killed = db_->Count(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
      "WHERE datname = current_database() AND query ILIKE 'LISTEN%'");
  ASSERT_EQ(killed, 1);
  ASSERT_TRUE(streams.RunUntil([&] { return !Named(streams.Events(s), "notification").empty(); }))
      << streams.Received(s);
  EXPECT_EQ(json::parse(Named(streams.Events(s), "notification")[0].data)["title"], "silent");
  EXPECT_TRUE(Eventually([&] { return server_->listener_connections() >= 2; }));
}

TEST_F(SseTest, IdleStreamsCostNoThreads) {
  ASSERT_EQ(client().Get("/healthz").status, 200);  // every pool and thread is up
  const int threads_before = ProcessThreads();
  constexpr int kStreams = 500;
  constexpr int kUsers = 50;
  SseGroup streams(server_->port());
  for (int i = 0; i < kStreams; ++i) streams.Open(StreamPath(1 + i % kUsers));
  ASSERT_TRUE(streams.RunUntil([&] {
    for (int i = 0; i < kStreams; ++i) {
      if (streams.Events(i).empty()) return false;
    }
    return true;
  })) << "not every stream got its first event";
  EXPECT_GE(server_->connections(), static_cast<std::size_t>(kStreams));
  EXPECT_EQ(ProcessThreads(), threads_before) << "threads grew with the streams";

  // A notification for one user reaches exactly that user's ten streams.
  PutUser(7, {{"email", "u7@example.uz"}});
  ASSERT_EQ(Notify(7).status, 201);
  ASSERT_TRUE(streams.RunUntil([&] {
    for (int i = 6; i < kStreams; i += kUsers) {
      if (Named(streams.Events(i), "notification").empty()) return false;
    }
    return true;
  }));
  EXPECT_EQ(ProcessThreads(), threads_before);

  // Hanging up is noticed without waiting for a heartbeat.
  for (int i = 0; i < kStreams; ++i) streams.Close(i);
  EXPECT_TRUE(Eventually([&] { return server_->connections() <= 1; })) << server_->connections();
}

TEST_F(SseTest, StopEndsStreamsCleanly) {
  SseGroup streams(server_->port());
  const int s = streams.Open(StreamPath(1));
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); }));
  server_->Stop();
  ASSERT_TRUE(streams.RunUntil([&] { return streams.Finished(s); }));
  EXPECT_EQ(streams.Result(s), CURLE_OK) << "the chunked stream ended with its last chunk";
  EXPECT_EQ(server_->connections(), 0u);
}

}  // namespace
}  // namespace chopar::http::testing
