// Delayed notifications (send_at / delay_seconds) and cancellation by key
// (docs/api.md "Workflows"), over HTTP with the releaser running on the
// real clock: nothing shows in the inbox, the unread count or the stream
// before a delayed notification is due; it appears then; canceled first, it
// never appears.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "core/time_format.hpp"
#include "http/http_server_fixture.hpp"
#include "http/workflow_routes.hpp"
#include "workflow/engine/releaser.hpp"

namespace chopar::http::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class WorkflowRoutesTest : public HttpServerPgTest {
 protected:
  void SetUp() override {
    HttpServerPgTest::SetUp();
    if (IsSkipped()) return;
    canceler_ = std::make_unique<workflow::engine::Canceler>(*pool_, metrics_);
    StartServer(DefaultSettings());  // again, now with the workflow routes
    releaser_ = std::make_unique<workflow::engine::Releaser>(*pool_, clock_, metrics_, nullptr);
    PutUser(1, {{"email", "aziz@example.uz"}});
    PutUser(2, {{"email", "dilnoza@example.uz"}});
  }
  void TearDown() override {
    releaser_.reset();
    HttpServerPgTest::TearDown();
  }
  void AddRoutes(Router& router) override {
    if (canceler_) RegisterWorkflowRoutes(router, *canceler_);
  }

  json Get(const std::string& path) {
    const auto response = client().Get(path, {kAuth});
    return json::parse(response.body);
  }
  std::size_t InboxSize(std::int64_t user) {
    return Get("/v1/users/" + std::to_string(user) + "/notifications")["items"].size();
  }
  int Unread(std::int64_t user) {
    return Get("/v1/users/" + std::to_string(user) + "/notifications/unread-count")["count"];
  }
  json Cancel(const json& body) {
    const auto response = client().Post("/v1/notifications/cancel", body.dump(), {kAuth});
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body);
  }

  std::unique_ptr<workflow::engine::Canceler> canceler_;
  std::unique_ptr<workflow::engine::Releaser> releaser_;
};

TEST_F(WorkflowRoutesTest, SendAtHidesThenShowsInTheInboxTheUnreadCountAndTheStream) {
  SseGroup streams(server_->port());
  const int s = streams.Open("/v1/inbox/stream?token=" + Token(1));
  ASSERT_TRUE(streams.RunUntil([&] { return !streams.Events(s).empty(); })) << streams.Received(s);
  releaser_->Start();

  const auto created = Notify(1, {{"delay_seconds", 2}});
  ASSERT_EQ(created.status, 201) << created.body;
  const json result = created.Json();
  EXPECT_EQ(result["channels"], json::array()) << "chosen when it appears";
  const auto due = core::ParseRfc3339(result["send_at"].get<std::string>());
  ASSERT_TRUE(due.has_value()) << result.dump();
  const std::int64_t id = result["id"];

  // Before send_at: not in the inbox, not counted, not found, not streamed.
  EXPECT_EQ(InboxSize(1), 0u);
  EXPECT_EQ(Unread(1), 0);
  EXPECT_EQ(client().Get("/v1/notifications/" + std::to_string(id), {kAuth}).status, 404);

  // The stream's notification event arrives at send_at (whole seconds in
  // the answer; the wake-up is within about a second of it).
  ASSERT_TRUE(streams.RunUntil(
      [&] {
        const auto events = streams.Events(s);
        return std::any_of(events.begin(), events.end(),
                           [](const SseEvent& e) { return e.event == "notification"; });
      },
      std::chrono::seconds(20)))
      << streams.Received(s);
  const auto arrived = std::chrono::system_clock::now();
  EXPECT_GE(arrived, *due);
  EXPECT_LT(arrived - *due, milliseconds(2500)) << "woken at its due time, not by polling";
  const auto events = streams.Events(s);
  const auto notification = std::find_if(
      events.begin(), events.end(), [](const SseEvent& e) { return e.event == "notification"; });
  EXPECT_EQ(json::parse(notification->data)["id"], id) << "the id POST answered";

  EXPECT_EQ(InboxSize(1), 1u);
  EXPECT_EQ(Unread(1), 1);
  const json shown = Get("/v1/notifications/" + std::to_string(id));
  EXPECT_EQ(shown["deliveries"].size(), 1u) << shown.dump();
}

TEST_F(WorkflowRoutesTest, CanceledBeforeSendAtNeverAppears) {
  const json key = {{"delay_seconds", 1}, {"cancellation_key", "task:1:due"}};
  ASSERT_EQ(Notify(1, key).status, 201);
  ASSERT_EQ(Notify(2, key).status, 201);
  ASSERT_EQ(Notify(2, key).status, 201);
  const auto kept = Notify(1, {{"delay_seconds", 1}, {"cancellation_key", "task:2:due"}});
  ASSERT_EQ(kept.status, 201);

  EXPECT_EQ(Cancel({{"user_id", 1}, {"cancellation_key", "task:1:due"}}), (json{{"canceled", 1}}));
  EXPECT_EQ(Cancel({{"cancellation_key", "task:1:due"}}), (json{{"canceled", 2}}))
      << "every user's";
  EXPECT_EQ(Cancel({{"cancellation_key", "task:1:due"}}), (json{{"canceled", 0}}));

  // Released after its due time, in due order: the one not canceled appears,
  // and the canceled ones, due earlier, never do.
  releaser_->Start();
  ASSERT_TRUE(Eventually([&] { return InboxSize(1) == 1; })) << "the other key's";
  EXPECT_EQ(Get("/v1/users/1/notifications")["items"][0]["id"], kept.Json()["id"]);
  EXPECT_EQ(InboxSize(2), 0u);
  EXPECT_EQ(Unread(2), 0);
}

TEST_F(WorkflowRoutesTest, CancelEndsQueuedDeliveriesOfTheKeyOnly) {
  // No worker runs here: deliveries stay queued until canceled.
  const std::int64_t mine =
      Notify(1, {{"cancellation_key", "task:1:due"}, {"channels", {"email"}}}).Json()["id"];
  const std::int64_t theirs =
      Notify(2, {{"cancellation_key", "task:1:due"}, {"channels", {"email"}}}).Json()["id"];
  const std::int64_t plain = Notify(1, {{"channels", {"email"}}}).Json()["id"];

  EXPECT_EQ(Cancel({{"user_id", 1}, {"cancellation_key", "task:1:due"}}), (json{{"canceled", 1}}));
  const json canceled = Get("/v1/notifications/" + std::to_string(mine))["deliveries"][0];
  EXPECT_EQ(canceled["status"], "canceled");
  EXPECT_EQ(canceled["last_error"], "canceled");
  EXPECT_EQ(Get("/v1/notifications/" + std::to_string(theirs))["deliveries"][0]["status"],
            "queued");
  EXPECT_EQ(Get("/v1/notifications/" + std::to_string(plain))["deliveries"][0]["status"], "queued");
  EXPECT_EQ(InboxSize(1), 2u) << "the in-app notification stays";
  EXPECT_EQ(Get("/v1/deliveries?status=canceled")["items"].size(), 1u);
}

TEST_F(WorkflowRoutesTest, DelayedDedupKeyAnswersTheSameIdAndRequestsAreChecked) {
  const json body = {{"send_at", "2099-01-01T00:00:00Z"}, {"dedup_key", "later:1"}};
  const auto first = Notify(1, body);
  ASSERT_EQ(first.status, 201) << first.body;
  const auto again = Notify(1, body);
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.Json()["id"], first.Json()["id"]);

  struct Refusal {
    json extra;
    std::string field;
  };
  for (const Refusal& r : std::vector<Refusal>{
           {{{"send_at", "tomorrow"}}, "send_at"},
           {{{"delay_seconds", -1}}, "delay_seconds"},
           {{{"delay_seconds", 10}, {"send_at", "2099-01-01T00:00:00Z"}}, "delay_seconds"},
           {{{"cancellation_key", ""}}, "cancellation_key"}}) {
    const auto refused = Notify(1, r.extra);
    EXPECT_EQ(refused.status, 400) << r.extra.dump();
    EXPECT_EQ(refused.Json()["error"]["field"], r.field) << refused.body;
  }
  const auto no_key = client().Post("/v1/notifications/cancel", R"({"user_id": 1})", {kAuth});
  EXPECT_EQ(no_key.status, 400);
  EXPECT_EQ(no_key.Json()["error"]["field"], "cancellation_key");
}

}  // namespace
}  // namespace chopar::http::testing
