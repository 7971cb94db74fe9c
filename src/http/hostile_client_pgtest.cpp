// One client must not take the service down: hostile bodies, headers and
// connections get a clear answer (or are dropped) while others are served.
#include <gtest/gtest.h>

#include <thread>

#include "http/http_server_fixture.hpp"
#include "http/raw_connection.hpp"

namespace chopar::http::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

class HostileClientTest : public HttpServerPgTest {
 protected:
  // The server's answer to `raw` within `limit`, up to the end of its headers.
  static std::string Answer(RawConnection& raw, std::chrono::milliseconds limit = 3s) {
    bool closed = false;
    return raw.ReadUntil("\r\n\r\n", limit, closed);
  }
};

TEST_F(HostileClientTest, DeeplyNestedJsonIs400NotAStackOverflow) {
  PutUser(1, {{"email", "a@example.uz"}});
  // Just under the 1 MiB body limit: about half a million levels.
  const std::size_t depth = 500'000;
  const std::string body = R"({"user_id": 1, "type": "task.due", "title": "t", "data": {"x": )" +
                           std::string(depth, '[') + std::string(depth, ']') + "}}";
  ASSERT_LT(body.size(), std::size_t{1} << 20);
  const auto response = client().Post("/v1/notifications", body, {kAuth});
  EXPECT_EQ(response.status, 400) << response.body;
  EXPECT_EQ(response.ErrorCode(), "invalid_json");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.notifications"), 0);
  EXPECT_EQ(client().Get("/healthz").status, 200);
}

// The credentials are on the headers: a body is neither asked for (100
// Continue) nor read before they are checked.
TEST_F(HostileClientTest, CredentialsAreCheckedBeforeTheBodyIsAskedForOrRead) {
  for (const std::string expect : {"Expect: 100-continue\r\n", ""}) {
    SCOPED_TRACE(expect.empty() ? "without Expect" : "with Expect: 100-continue");
    RawConnection raw(server_->port());
    raw.Send("POST /v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n" +
             expect + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{");
    const std::string answer = Answer(raw);
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
    EXPECT_EQ(answer.find("100 Continue"), std::string::npos) << answer;
  }
  {
    // A subscriber route checks its token first too, from the query string.
    RawConnection raw(server_->port());
    raw.Send(
        "POST /v1/inbox/read?token=1.AAAA HTTP/1.1\r\nHost: x\r\n"
        "Expect: 100-continue\r\nContent-Length: 1000000\r\n\r\n");
    const std::string answer = Answer(raw);
    EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
  }
  {
    // With the right key the body is asked for and read as before.
    PutUser(1, {{"email", "a@example.uz"}});
    const std::string body = json{{"user_id", 1}, {"type", "task.due"}, {"title", "t"}}.dump();
    RawConnection raw(server_->port());
    raw.Send("POST /v1/notifications HTTP/1.1\r\nHost: x\r\n" + kAuth +
             "\r\nExpect: 100-continue\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n");
    EXPECT_EQ(Answer(raw).rfind("HTTP/1.1 100 Continue", 0), 0u);
    raw.Send(body);
    EXPECT_EQ(Answer(raw).rfind("HTTP/1.1 201", 0), 0u);
  }
}

// The header deadline runs from the connection (or, on a kept-alive one,
// from the request's first byte) and is not restarted by that byte.
TEST_F(HostileClientTest, HeaderDeadlineIsNotRestartedByTheFirstByte) {
  auto settings = DefaultSettings();
  settings.header_timeout = 1000ms;
  StartServer(settings);
  RawConnection raw(server_->port());
  const auto start = Clock::now();
  std::this_thread::sleep_for(800ms);  // the first byte, late but in time
  raw.Send("G");
  // Then one byte every 100 ms: the header never completes.
  bool closed = false;
  for (char c : std::string("ET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa")) {
    if (!raw.TrySend(std::string(1, c))) break;
    (void)raw.ReadUntil("\r\n", 100ms, closed);
    if (closed) break;
  }
  const auto lasted = Clock::now() - start;
  EXPECT_TRUE(closed) << "the slow header was waited for past its deadline";
  EXPECT_LT(lasted, 1500ms) << "closed after "
                            << std::chrono::duration_cast<std::chrono::milliseconds>(lasted).count()
                            << " ms; the deadline is 1000 ms from the connection";
}

TEST_F(HostileClientTest, ConnectionsOverTheCapGet503AndOthersAreServedAgainAfterwards) {
  auto settings = DefaultSettings();
  settings.max_connections = 4;
  StartServer(settings);
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(std::make_unique<RawConnection>(server_->port()));
  ASSERT_TRUE(Eventually([&] { return server_->connections() == 4; }));

  RawConnection over(server_->port());
  bool closed = false;
  const std::string refused = over.ReadToEnd(closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(refused.rfind("HTTP/1.1 503", 0), 0u) << refused;
  EXPECT_NE(refused.find("\"unavailable\""), std::string::npos) << refused;

  idle.pop_back();
  ASSERT_TRUE(Eventually([&] { return server_->connections() <= 3; }));
  HttpClient fresh(server_->port());
  EXPECT_EQ(fresh.Get("/healthz").status, 200);
}

TEST_F(HostileClientTest, StreamsOverTheirCapsGet503PerUserAndInAll) {
  auto settings = DefaultSettings();
  settings.max_streams = 3;
  settings.max_streams_per_user = 2;
  StartServer(settings);
  for (int user = 1; user <= 3; ++user) PutUser(user, {{"email", "u@example.uz"}});
  SseGroup streams(server_->port());
  const auto open = [&](int user) { return streams.Open("/v1/inbox/stream?token=" + Token(user)); };
  const int first = open(1), second = open(1);
  ASSERT_TRUE(streams.RunUntil(
      [&] { return !streams.Events(first).empty() && !streams.Events(second).empty(); }));
  const int third_of_user = open(1);
  ASSERT_TRUE(streams.RunUntil([&] { return streams.Finished(third_of_user); }));
  EXPECT_EQ(streams.Status(third_of_user), 503);
  EXPECT_NE(streams.Received(third_of_user).find("\"unavailable\""), std::string::npos);

  const int other_user = open(2);
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(other_user).empty(); }));
  const int over_all = open(3);
  ASSERT_TRUE(streams.RunUntil([&] { return streams.Finished(over_all); }));
  EXPECT_EQ(streams.Status(over_all), 503);

  // A stream that ends frees its place.
  streams.Close(first);
  const int again = open(3);
  EXPECT_TRUE(streams.RunUntil([&] { return !streams.Events(again).empty(); }));
  EXPECT_EQ(streams.Status(again), 200);
}

// A stream whose reader stopped reading is closed once a write has waited
// write_timeout, instead of holding its socket and memory for ever.
TEST_F(HostileClientTest, StalledStreamReaderIsDisconnectedAfterTheWriteTimeout) {
  auto settings = DefaultSettings();
  settings.write_timeout = 1000ms;
  StartServer(settings);
  PutUser(1, {{"email", "a@example.uz"}});
  RawConnection reader(server_->port(), /*receive_buffer=*/4096);
  reader.Send("GET /v1/inbox/stream?token=" + Token(1) + " HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_NE(Answer(reader).find("200 OK"), std::string::npos);
  ASSERT_TRUE(Eventually([&] { return server_->streams() == 1; }));
  // Far more than the socket buffers hold (~9 MB, in batches under the body
  // limit); the reader reads none of it.
  json batch = {{"notifications", json::array()}};
  for (int i = 0; i < 100; ++i) {
    batch["notifications"].push_back(
        {{"user_id", 1}, {"type", "bulk.item"}, {"title", "t"}, {"body", std::string(9000, 'x')}});
  }
  for (int round = 0; round < 10; ++round) {
    ASSERT_EQ(client().Post("/v1/notifications/batch", batch.dump(), {kAuth}).status, 200);
  }
  EXPECT_TRUE(Eventually([&] { return server_->streams() == 0; }, 15s))
      << "the stalled stream is still open";
  EXPECT_EQ(client().Get("/healthz").status, 200);
}

}  // namespace
}  // namespace chopar::http::testing
