// The NATS target against a real `nats-server -js` started by the test.
#include "outbox/nats_target.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/time_format.hpp"
#include "testing/nats_server.hpp"

namespace chopar::outbox {
namespace {

// Reads a stream back, as a consumer would: its message count and each
// message by sequence.
class StreamReader {
 public:
  StreamReader(const std::string& url, std::string stream) : stream_(std::move(stream)) {
    natsConnection* raw = nullptr;
    CheckNats(natsConnection_ConnectTo(&raw, url.c_str()), "connect");
    connection_.reset(raw);
    jsCtx* js = nullptr;
    CheckNats(natsConnection_JetStream(&js, connection_.get(), nullptr), "JetStream");
    js_.reset(js);
  }
  std::uint64_t Messages() {
    jsStreamInfo* raw = nullptr;
    CheckNats(js_GetStreamInfo(&raw, js_.get(), stream_.c_str(), nullptr, nullptr), "stream info");
    const JsStreamInfo info(raw);
    return info->State.Msgs;
  }
  struct Message {
    std::string subject, msg_id, data;
  };
  Message Get(std::uint64_t sequence) {
    natsMsg* raw = nullptr;
    CheckNats(js_GetMsg(&raw, js_.get(), stream_.c_str(), sequence, nullptr, nullptr),
              "get message");
    const NatsMsg msg(raw);
    const char* id = nullptr;
    natsMsgHeader_Get(msg.get(), "Nats-Msg-Id", &id);
    return {natsMsg_GetSubject(msg.get()), id ? id : "",
            std::string(natsMsg_GetData(msg.get()),
                        static_cast<std::size_t>(natsMsg_GetDataLength(msg.get())))};
  }

 private:
  std::string stream_;
  NatsConnection connection_;
  JsContext js_;
};

Event MakeEvent(int n, const std::string& type = "task.created") {
  Event event;
  event.id = n;
  event.event_id = "00000000-0000-4000-8000-" + std::string(12 - std::to_string(n).size(), '0') +
                   std::to_string(n);
  event.type = type;
  event.user_id = n;
  event.payload = R"({"n": )" + std::to_string(n) + "}";
  event.created_at = *core::ParseRfc3339("2026-10-28T13:05:00Z");
  event.body = EventBody(event);
  return event;
}

std::vector<const Event*> Pointers(const std::vector<Event>& events) {
  std::vector<const Event*> pointers;
  for (const Event& e : events) pointers.push_back(&e);
  return pointers;
}

bool AllOk(const std::vector<PublishOutcome>& outcomes) {
  return std::all_of(outcomes.begin(), outcomes.end(),
                     [](const PublishOutcome& o) { return o.ok; });
}

class NatsTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!chopar::testing::NatsServer::Binary()) GTEST_SKIP() << "nats-server is not installed";
    server_ = std::make_unique<chopar::testing::NatsServer>();
    settings_.kind = "nats";
    settings_.name = "nats";
    settings_.url = server_->url();
    settings_.stream = "EVENTS";
    settings_.timeout = std::chrono::seconds(2);
  }
  std::unique_ptr<chopar::testing::NatsServer> server_;
  TargetSettings settings_;
};

TEST_F(NatsTargetTest, CreatesTheStreamAndPublishesEachEventWithItsIdAsNatsMsgId) {
  NatsTarget target(settings_);
  const std::vector<Event> events = {MakeEvent(1), MakeEvent(2, "task.due.soon"), MakeEvent(3)};
  EXPECT_TRUE(AllOk(target.Publish(Pointers(events))));

  StreamReader stream(server_->url(), "EVENTS");
  ASSERT_EQ(stream.Messages(), 3u);
  for (std::uint64_t seq = 1; seq <= 3; ++seq) {
    const auto message = stream.Get(seq);
    const Event& sent = events[seq - 1];
    EXPECT_EQ(message.msg_id, sent.event_id);
    EXPECT_EQ(message.subject, "chopar.events." + sent.type);
    EXPECT_EQ(message.data, sent.body);
    EXPECT_EQ(nlohmann::json::parse(message.data)["id"], sent.event_id);
  }
}

TEST_F(NatsTargetTest, ARepublishedEventIsDroppedByJetStreamAndStillCountsAsPublished) {
  NatsTarget target(settings_);
  std::vector<Event> events;
  for (int n = 1; n <= 50; ++n) events.push_back(MakeEvent(n));
  EXPECT_TRUE(AllOk(target.Publish(Pointers(events))));
  EXPECT_EQ(target.duplicates(), 0u);

  // A relay that died before marking publishes the batch again; a second
  // relay process has its own connection.
  NatsTarget other(settings_);
  EXPECT_TRUE(AllOk(other.Publish(Pointers(events))));
  EXPECT_EQ(other.duplicates(), 50u);
  StreamReader stream(server_->url(), "EVENTS");
  EXPECT_EQ(stream.Messages(), 50u);

  events.push_back(MakeEvent(51));
  EXPECT_TRUE(AllOk(target.Publish(Pointers(events))));
  EXPECT_EQ(stream.Messages(), 51u);
  EXPECT_EQ(target.duplicates(), 50u);
}

TEST_F(NatsTargetTest, ADownServerFailsTheBatchAsUnavailableAndARestartedOneTakesItAgain) {
  NatsTarget target(settings_);
  const std::vector<Event> first = {MakeEvent(1)};
  EXPECT_TRUE(AllOk(target.Publish(Pointers(first))));

  server_->Kill();
  const std::vector<Event> second = {MakeEvent(2), MakeEvent(3)};
  const auto down = target.Publish(Pointers(second));
  ASSERT_EQ(down.size(), 2u);
  EXPECT_TRUE(down[0].unavailable);
  EXPECT_TRUE(down[1].unavailable);

  server_->Restart();  // the same store: the stream and message 1 are still there
  bool published = false;
  for (int attempt = 0; attempt < 20 && !published; ++attempt) {
    published = AllOk(target.Publish(Pointers(second)));
    if (!published) std::this_thread::sleep_for(std::chrono::milliseconds(250));  // reconnecting
  }
  EXPECT_TRUE(published);
  StreamReader stream(server_->url(), "EVENTS");
  EXPECT_EQ(stream.Messages(), 3u);
}

TEST_F(NatsTargetTest, NoServerAtAllFailsFastAsUnavailable) {
  server_->Kill();
  NatsTarget target(settings_);
  const std::vector<Event> events = {MakeEvent(1)};
  const auto started = std::chrono::steady_clock::now();
  const auto outcomes = target.Publish(Pointers(events));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  EXPECT_TRUE(outcomes[0].unavailable);
  EXPECT_NE(outcomes[0].error.find("connect to nats://127.0.0.1"), std::string::npos)
      << outcomes[0].error;
}

}  // namespace
}  // namespace chopar::outbox
