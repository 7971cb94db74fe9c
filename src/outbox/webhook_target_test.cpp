// The webhook target against a real HTTP server on 127.0.0.1, its
// signatures checked by independent code (testing::WebhookSignatureProblem).
#include "outbox/webhook_target.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/time_format.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/webhook_verifier.hpp"

namespace chopar::outbox {
namespace {

using chopar::testing::FakeHttpServer;

FakeHttpServer::Response Answer(int status, std::string body = "",
                                std::map<std::string, std::string> headers = {}) {
  FakeHttpServer::Response response;
  response.status = status;
  response.body = std::move(body);
  response.headers = std::move(headers);
  return response;
}

constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

Event MakeEvent(const std::string& id, const std::string& type = "task.created") {
  Event event;
  event.event_id = id;
  event.type = type;
  event.user_id = 7;
  event.payload = R"({"title": "Non olish"})";
  event.created_at = *core::ParseRfc3339("2026-10-28T13:05:00Z");
  event.body = EventBody(event);
  return event;
}

class WebhookTargetTest : public ::testing::Test {
 protected:
  TargetSettings Settings(const std::string& url) {
    TargetSettings settings;
    settings.kind = "webhook";
    settings.name = "webhook";
    settings.url = url;
    settings.secret = kSecret;
    settings.timeout = std::chrono::milliseconds(2000);
    return settings;
  }
  std::vector<PublishOutcome> Publish(WebhookTarget& target, const std::vector<Event>& events) {
    std::vector<const Event*> pointers;
    for (const Event& e : events) pointers.push_back(&e);
    return target.Publish(pointers);
  }
  net::HttpClient http_;
  core::SimulatedClock clock_{*core::ParseRfc3339("2026-10-28T13:05:07Z")};
};

TEST_F(WebhookTargetTest, PostsEachEventWithStandardWebhooksHeadersThatVerify) {
  FakeHttpServer receiver([](const FakeHttpServer::Request&) { return Answer(204, ""); });
  WebhookTarget target(Settings(receiver.url() + "/hooks"), http_, clock_);
  const std::vector<Event> events = {
      MakeEvent("11111111-1111-4111-8111-111111111111"),
      MakeEvent("22222222-2222-4222-8222-222222222222", "task.done")};
  const auto outcomes = Publish(target, events);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_TRUE(outcomes[0].ok);
  EXPECT_TRUE(outcomes[1].ok);

  const auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 2u);
  for (const auto& request : requests) {
    EXPECT_EQ(request.method, "POST");
    EXPECT_EQ(request.target, "/hooks");
    EXPECT_EQ(request.headers.at("content-type"), "application/json");
    EXPECT_EQ(request.headers.at("webhook-timestamp"), "1793192707");  // the clock's
    const auto id = request.headers.at("webhook-id");
    const Event& sent = id == events[0].event_id ? events[0] : events[1];
    EXPECT_EQ(request.body, sent.body);
    EXPECT_EQ(chopar::testing::WebhookSignatureProblem(kSecret, request.headers, request.body), "");
    EXPECT_NE(chopar::testing::WebhookSignatureProblem("whsec_b3RoZXIgc2VjcmV0", request.headers,
                                                       request.body),
              "")
        << "the verifier itself refuses another secret";
  }
}

TEST_F(WebhookTargetTest, AnEventTheReceiverRefusesFailsAloneTheReceiversTroubleIsUnavailable) {
  FakeHttpServer receiver([](const FakeHttpServer::Request& r) {
    const std::string id = r.headers.at("webhook-id");
    if (id.starts_with("4")) return Answer(400, R"({"error": "unknown type"})");
    if (id.starts_with("5")) return Answer(503, "down for maintenance");
    if (id.starts_with("6")) return Answer(429, "", {{"Retry-After", "30"}});
    return Answer(200, "ok");
  });
  WebhookTarget target(Settings(receiver.url()), http_, clock_);
  const auto outcomes = Publish(target, {MakeEvent("4-refused"), MakeEvent("5-down"),
                                         MakeEvent("6-slow-down"), MakeEvent("2-fine")});
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_FALSE(outcomes[0].ok);
  EXPECT_FALSE(outcomes[0].unavailable);
  EXPECT_EQ(outcomes[0].error, R"(HTTP 400: {"error": "unknown type"})");
  EXPECT_TRUE(outcomes[1].unavailable);
  EXPECT_EQ(outcomes[1].error, "HTTP 503: down for maintenance");
  EXPECT_TRUE(outcomes[2].unavailable);
  EXPECT_EQ(outcomes[2].retry_after, std::chrono::seconds(30));
  EXPECT_TRUE(outcomes[3].ok);
}

TEST_F(WebhookTargetTest, NoAnswerWithinTheTimeoutOrNoServerIsUnavailable) {
  FakeHttpServer slow([](const FakeHttpServer::Request&) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(800));  // a receiver slower than the timeout
    return Answer(200, "");
  });
  TargetSettings settings = Settings(slow.url());
  settings.timeout = std::chrono::milliseconds(200);
  WebhookTarget target(settings, http_, clock_);
  const auto started = std::chrono::steady_clock::now();
  const auto outcomes = Publish(target, {MakeEvent("a"), MakeEvent("b")});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(700));
  EXPECT_TRUE(outcomes[0].unavailable);
  EXPECT_TRUE(outcomes[1].error.starts_with("no answer")) << outcomes[1].error;

  WebhookTarget nowhere(
      Settings("http://127.0.0.1:" + std::to_string(chopar::testing::FreeLoopbackPort())), http_,
      clock_);
  const auto refused = Publish(nowhere, {MakeEvent("c")});
  EXPECT_TRUE(refused[0].unavailable);
}

// Relay loops used to hand the receiver whole batches at
// once, and requests timed out queued behind the others at a receiver that
// then took them, so the relay sent them again. Here two loops share one
// target with max_in_flight = 2 and a receiver that takes 400 ms a request:
// the 6 events go in three rounds, the last ending about 1.2 s after the
// start, past the 1 s timeout, and every event is still accepted, once,
// with never more than 2 at once: each request's timeout ran from its own
// start.
TEST_F(WebhookTargetTest, ASlowReceiverSlowsTheLoopsInsteadOfTimingOutRequestsItTook) {
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  FakeHttpServer receiver([&](const FakeHttpServer::Request&) {
    const int now = ++in_flight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the receiver's work
    --in_flight;
    return Answer(200, "ok");
  });
  TargetSettings settings = Settings(receiver.url());
  settings.timeout = std::chrono::milliseconds(1000);
  settings.max_in_flight = 2;
  WebhookTarget target(settings, http_, clock_);
  auto batch = [](char loop) {
    std::vector<Event> events;
    for (int i = 0; i < 3; ++i) events.push_back(MakeEvent(loop + std::to_string(i)));
    return events;
  };
  const auto started = std::chrono::steady_clock::now();
  std::vector<PublishOutcome> first, second;
  std::thread other([&] { second = Publish(target, batch('b')); });
  first = Publish(target, batch('a'));
  other.join();

  for (const auto* outcomes : {&first, &second}) {
    ASSERT_EQ(outcomes->size(), 3u);
    for (const PublishOutcome& o : *outcomes) EXPECT_TRUE(o.ok) << o.error;
  }
  EXPECT_EQ(receiver.request_count(), 6u) << "each event sent once";
  EXPECT_LE(most.load(), 2);
  EXPECT_GT(std::chrono::steady_clock::now() - started, settings.timeout)
      << "the last answers came after one timeout from the start";
}

// A receiver that holds every slot cannot hold the relay: an event still
// waiting for a slot one timeout after Publish began is not sent, and is
// due again at once (it never reached the receiver: nothing to repeat).
// With one slot and a receiver that never answers in time, "a" holds the
// slot for the whole timeout, "b" starts as it ends or is given up with
// "c", and "c" (behind "b") never starts.
TEST_F(WebhookTargetTest, AnEventThatGetsNoSlotWithinTheTimeoutIsNotSentAndDueAgainAtOnce) {
  FakeHttpServer receiver([](const FakeHttpServer::Request&) {
    FakeHttpServer::Response late = Answer(200, "ok");
    late.delay = std::chrono::milliseconds(3000);  // past the timeout
    return late;
  });
  TargetSettings settings = Settings(receiver.url());
  settings.timeout = std::chrono::milliseconds(500);
  settings.max_in_flight = 1;
  WebhookTarget target(settings, http_, clock_);
  const auto started = std::chrono::steady_clock::now();
  const auto outcomes = Publish(target, {MakeEvent("a"), MakeEvent("b"), MakeEvent("c")});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(2500))
      << "about twice the timeout, not three times";
  ASSERT_EQ(outcomes.size(), 3u);
  std::size_t sent = 0;
  for (const PublishOutcome& o : outcomes) {
    EXPECT_TRUE(o.unavailable) << o.error;
    if (o.error.starts_with("no answer")) {
      ++sent;
    } else {
      EXPECT_TRUE(o.error.starts_with("not sent: 1 requests (max_in_flight)")) << o.error;
      EXPECT_EQ(o.retry_after, std::chrono::seconds(0));
    }
  }
  EXPECT_TRUE(outcomes[0].error.starts_with("no answer")) << outcomes[0].error;
  EXPECT_TRUE(outcomes[2].error.starts_with("not sent")) << outcomes[2].error;
  EXPECT_EQ(receiver.request_count(), sent) << "what was not sent never reached the receiver";
}

TEST_F(WebhookTargetTest, RefusesASecretThatIsNotStandardWebhooksOrNoRequestSlot) {
  TargetSettings settings = Settings("http://127.0.0.1:1");
  settings.secret = "not base64!";
  EXPECT_THROW(WebhookTarget(settings, http_, clock_), std::invalid_argument);
  settings = Settings("http://127.0.0.1:1");
  settings.max_in_flight = 0;
  EXPECT_THROW(WebhookTarget(settings, http_, clock_), std::invalid_argument);
}

}  // namespace
}  // namespace chopar::outbox
