#include "channels/webpush/channel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "channels/render.hpp"
#include "channels/webpush/crypto.hpp"
#include "core/clock.hpp"
#include "core/encoding.hpp"
#include "core/time_format.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/silent_server.hpp"

namespace chopar::channels::webpush {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FakeHttpServer;
using testing::SilentServer;

constexpr std::string_view kPublicUrl = "https://chopar.example";
constexpr std::string_view kSubject = "mailto:admin@example.com";

// A browser's push subscription: its own key pair and auth secret, which the
// fake push service uses to read what chopar sent.
struct Subscriber {
  std::int64_t id = 0;
  P256KeyPair keys = GenerateP256KeyPair();
  std::string auth = core::RandomBytes(kPushAuthSecretSize);

  [[nodiscard]] std::string Path() const { return "/push/" + std::to_string(id); }
  [[nodiscard]] PushTarget Target(const std::string& base) const {
    return {id, base + Path(), core::Base64UrlEncode(keys.public_key), core::Base64UrlEncode(auth)};
  }
};

Message PushMessage(std::int64_t notification_id, std::vector<PushTarget> targets) {
  Message m;
  m.delivery_id = notification_id * 10;
  m.notification_id = notification_id;
  m.user_id = 42;
  m.channel = core::ChannelKind::kPush;
  m.type = "task.due";
  m.title = "Muddat yaqin";
  m.body = "Non olish — 18:00";
  m.link = "/tasks/" + std::to_string(notification_id);
  m.push_targets = std::move(targets);
  return m;
}

FakeHttpServer::Response Answer(int status, std::map<std::string, std::string> headers = {}, std::string body = "") {
  FakeHttpServer::Response r;
  r.status = status;
  r.headers = std::move(headers);
  r.body = std::move(body);
  r.content_type = "text/plain";
  return r;
}

nlohmann::json JwtClaims(const std::string& authorization) {
  const auto t = authorization.find("t=");
  const auto comma = authorization.find(", k=");
  const std::string token = authorization.substr(t + 2, comma - t - 2);
  const auto first = token.find('.');
  const auto second = token.find('.', first + 1);
  return nlohmann::json::parse(core::Base64UrlDecode(token.substr(first + 1, second - first - 1)).value());
}

// A push service that answers by path: each test sets the answer per
// subscription; anything unset is accepted with 201 and a Location.
class WebPushChannelTest : public ::testing::Test {
 protected:
  WebPushChannelTest() {
    settings_.vapid_public_key = keys_.public_key;
    settings_.vapid_private_key = keys_.private_key;
    settings_.subject = std::string(kSubject);
    settings_.public_url = std::string(kPublicUrl);
    settings_.allow_http_endpoints = true;
    settings_.timeout = milliseconds(5000);
    channel_ = std::make_unique<WebPushChannel>(settings_, http_, clock_);
  }

  void AnswerFor(const Subscriber& s, FakeHttpServer::Response response) {
    std::lock_guard lock(mutex_);
    answers_[s.Path()] = std::move(response);
  }

  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex_);
    if (const auto it = answers_.find(request.target); it != answers_.end()) return it->second;
    return Answer(201, {{"Location", "https://push.example/m" + request.target}});
  }

  // The requests the fake received for one subscriber.
  std::vector<FakeHttpServer::Request> RequestsFor(const Subscriber& s) const {
    std::vector<FakeHttpServer::Request> out;
    for (auto& r : server_.requests()) {
      if (r.target == s.Path()) out.push_back(r);
    }
    return out;
  }

  // What the subscriber's browser would show, read with its private key.
  static nlohmann::json Decrypt(const Subscriber& s, const FakeHttpServer::Request& request) {
    const auto plaintext = DecryptPushPayload(request.body, s.keys, s.auth);
    if (!plaintext) {
      ADD_FAILURE() << "the push body does not decrypt with the subscription's key";
      return nullptr;
    }
    return nlohmann::json::parse(*plaintext);
  }

  core::SimulatedClock clock_{*core::ParseRfc3339("2026-10-28T13:05:00Z")};
  VapidKeys keys_ = GenerateVapidKeys();
  WebPushSettings settings_;
  std::mutex mutex_;
  std::map<std::string, FakeHttpServer::Response> answers_;
  // Declared before the client so the client (and its connections) goes first.
  FakeHttpServer server_{[this](const FakeHttpServer::Request& r) { return Handle(r); }};
  net::HttpClient http_;
  std::unique_ptr<WebPushChannel> channel_;
};

TEST_F(WebPushChannelTest, SentPayloadDecryptsToTheNotificationWithTheProtocolHeaders) {
  const Subscriber phone{1};
  Message normal = PushMessage(12, {phone.Target(server_.url())});
  Message critical = PushMessage(13, {phone.Target(server_.url())});
  critical.critical = true;
  const std::vector<Message> batch = {normal, critical};

  const auto outcomes = channel_->Send(batch);
  ASSERT_EQ(outcomes.size(), 2U);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.kind, OutcomeKind::kSent) << o.detail;
    EXPECT_TRUE(o.gone_push_subscriptions.empty());
  }
  EXPECT_EQ(outcomes[0].provider_message_id, "https://push.example/m/push/1");

  const auto requests = RequestsFor(phone);
  ASSERT_EQ(requests.size(), 2U);
  std::map<std::int64_t, FakeHttpServer::Request> by_id;
  for (const auto& r : requests) by_id[Decrypt(phone, r)["id"].get<std::int64_t>()] = r;
  ASSERT_EQ(by_id.size(), 2U);

  const auto& r = by_id.at(12);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.headers.at("ttl"), "86400");
  EXPECT_EQ(r.headers.at("urgency"), "normal");
  EXPECT_EQ(by_id.at(13).headers.at("urgency"), "high");
  EXPECT_EQ(r.headers.at("content-encoding"), "aes128gcm");
  EXPECT_EQ(r.headers.at("content-type"), "application/octet-stream");
  const std::string& authorization = r.headers.at("authorization");
  EXPECT_TRUE(authorization.starts_with("vapid t="));
  EXPECT_TRUE(authorization.ends_with(", k=" + keys_.public_key));
  const auto claims = JwtClaims(authorization);
  EXPECT_EQ(claims["aud"], server_.url());
  EXPECT_EQ(claims["sub"], kSubject);
  // 2026-10-28T13:05:00Z on the channel's clock, plus the 12 h token lifetime.
  EXPECT_EQ(claims["exp"], 1793192700 + 12 * 3600);

  EXPECT_EQ(Decrypt(phone, r), (nlohmann::json{{"id", 12},
                                               {"title", "Muddat yaqin"},
                                               {"body", "Non olish — 18:00"},
                                               {"url", "https://chopar.example/tasks/12"},
                                               {"type", "task.due"}}));
}

TEST_F(WebPushChannelTest, GoneSubscriptionIsReportedAndTheOtherStillReceives) {
  const Subscriber phone{1};
  const Subscriber laptop{2};
  AnswerFor(phone, Answer(410));
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url()), laptop.Target(server_.url())})};

  const auto outcomes = channel_->Send(batch);
  ASSERT_EQ(outcomes.size(), 1U);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent) << outcomes[0].detail;
  EXPECT_EQ(outcomes[0].gone_push_subscriptions, std::vector<std::int64_t>{1});
  ASSERT_EQ(RequestsFor(laptop).size(), 1U);
  EXPECT_EQ(Decrypt(laptop, RequestsFor(laptop)[0])["id"], 12);
  EXPECT_EQ(RequestsFor(phone).size(), 1U);
}

TEST_F(WebPushChannelTest, EverySubscriptionGoneMeansAddressGone) {
  const Subscriber phone{1};
  const Subscriber laptop{2};
  AnswerFor(phone, Answer(404));
  AnswerFor(laptop, Answer(410));
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url()), laptop.Target(server_.url())}),
                                      PushMessage(13, {})};

  const auto outcomes = channel_->Send(batch);
  ASSERT_EQ(outcomes.size(), 2U);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[0].gone_push_subscriptions, (std::vector<std::int64_t>{1, 2}));
  EXPECT_NE(outcomes[0].detail.find("404"), std::string::npos);
  // A message with no subscription left has no address either.
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kAddressGone);
}

TEST_F(WebPushChannelTest, PayloadTooLargeIsPermanent) {
  const Subscriber phone{1};
  AnswerFor(phone, Answer(413, {}, "payload exceeds 4096 bytes"));
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url())})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcomes[0].detail.find("413"), std::string::npos);
  EXPECT_NE(outcomes[0].detail.find("payload exceeds 4096 bytes"), std::string::npos);
}

TEST_F(WebPushChannelTest, TooManyRequestsRetriesAfterTheServicesDelay) {
  const Subscriber phone{1};
  AnswerFor(phone, Answer(429, {{"Retry-After", "120"}}));
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url())})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].retry_after, seconds(120));
}

TEST_F(WebPushChannelTest, RetryAfterDateCountsFromTheChannelsClock) {
  const Subscriber phone{1};
  AnswerFor(phone, Answer(503, {{"Retry-After", "Wed, 28 Oct 2026 13:06:30 GMT"}}));
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url())})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].retry_after, seconds(90));
}

TEST_F(WebPushChannelTest, ServerErrorsRetry) {
  const Subscriber a{1};
  const Subscriber b{2};
  AnswerFor(a, Answer(500, {}, "internal"));
  AnswerFor(b, Answer(503, {{"Retry-After", "30"}}));
  const std::vector<Message> batch = {PushMessage(12, {a.Target(server_.url())}),
                                      PushMessage(13, {b.Target(server_.url())})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].retry_after, std::nullopt);
  EXPECT_NE(outcomes[0].detail.find("500"), std::string::npos);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[1].retry_after, seconds(30));
}

TEST_F(WebPushChannelTest, OtherClientErrorsArePermanent) {
  const Subscriber a{1};
  const Subscriber b{2};
  AnswerFor(a, Answer(400, {}, "UnauthorizedRegistration"));
  AnswerFor(b, Answer(403, {}, "invalid JWT"));
  const std::vector<Message> batch = {PushMessage(12, {a.Target(server_.url())}),
                                      PushMessage(13, {b.Target(server_.url())})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcomes[0].detail.find("UnauthorizedRegistration"), std::string::npos);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
}

TEST_F(WebPushChannelTest, MixedTargetsRetryWhenAnyMaySucceedLater) {
  const Subscriber a{1};
  const Subscriber b{2};
  const Subscriber c{3};
  AnswerFor(a, Answer(413));
  AnswerFor(b, Answer(429, {{"Retry-After", "60"}}));
  AnswerFor(c, Answer(410));
  const std::vector<Message> batch = {
      PushMessage(12, {a.Target(server_.url()), b.Target(server_.url()), c.Target(server_.url())}),
      PushMessage(13, {a.Target(server_.url()), c.Target(server_.url())})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].retry_after, seconds(60));
  EXPECT_EQ(outcomes[0].gone_push_subscriptions, std::vector<std::int64_t>{3});
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[1].gone_push_subscriptions, std::vector<std::int64_t>{3});
}


// The push service accepted the message and answered after chopar's
// timeout: sending again would show it twice, so the outcome is final.
TEST_F(WebPushChannelTest, AnswerAfterTheTimeoutIsOutcomeUnknownAndNotSentAgain) {
  WebPushSettings settings = settings_;
  settings.timeout = milliseconds(300);
  WebPushChannel channel(settings, http_, clock_);
  const Subscriber phone{1};
  FakeHttpServer::Response late = Answer(201, {{"Location", "https://push.example/m/1"}});
  late.delay = milliseconds(2000);
  AnswerFor(phone, late);
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url())})};
  const auto outcomes = channel.Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kUnknown) << outcomes[0].detail;
  EXPECT_TRUE(outcomes[0].detail.starts_with("outcome unknown: webpush: ")) << outcomes[0].detail;
  EXPECT_EQ(RequestsFor(phone).size(), 1u);
}

// An endpoint a subscriber chose that never answers held the
// whole batch. Now it costs its own request's timeout and one slot: with two
// slots, the six others go out through the second one at once, are sent,
// and reach the push service long before the silent one times out.
TEST_F(WebPushChannelTest, AnEndpointThatNeverAnswersCostsOnlyItsOwnRequestsTimeout) {
  const SilentServer silent;
  WebPushSettings settings = settings_;
  settings.timeout = milliseconds(1500);
  settings.max_in_flight = 2;
  WebPushChannel channel(settings, http_, clock_);
  const Subscriber hung{1};
  std::vector<Subscriber> answering;
  std::vector<Message> batch = {PushMessage(1, {hung.Target(silent.url())})};
  for (int i = 2; i <= 7; ++i) {
    answering.push_back(Subscriber{i});
    batch.push_back(PushMessage(i, {answering.back().Target(server_.url())}));
  }
  const auto start = std::chrono::system_clock::now();
  const auto outcomes = channel.Send(batch);

  ASSERT_EQ(outcomes.size(), batch.size());
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kUnknown)
      << "written, never answered: " << outcomes[0].detail;
  for (std::size_t i = 1; i < outcomes.size(); ++i) {
    EXPECT_EQ(outcomes[i].kind, OutcomeKind::kSent) << i << ": " << outcomes[i].detail;
  }
  ASSERT_EQ(server_.request_count(), answering.size());
  for (const auto& request : server_.requests()) {
    EXPECT_LT(request.received_at - start, milliseconds(1000))
        << "started beside the silent one, not after its timeout";
  }
  EXPECT_LT(std::chrono::system_clock::now() - start, milliseconds(4000))
      << "the batch ends about when the silent request times out";
}

// SendReporting hands each message over when its own targets have
// answered: every answered message before the one whose endpoint is silent,
// each once; a message with two targets waits for both; a message with
// nothing to send is reported before any request goes out.
TEST_F(WebPushChannelTest, EachMessageIsReportedWhenItsOwnTargetsHaveAnswered) {
  const SilentServer silent;
  WebPushSettings settings = settings_;
  settings.timeout = milliseconds(2000);
  WebPushChannel channel(settings, http_, clock_);
  const Subscriber hung{1}, phone{2}, laptop{3}, tablet{4};
  const std::vector<Message> batch = {
      PushMessage(1, {hung.Target(silent.url())}),
      PushMessage(2, {phone.Target(server_.url()), laptop.Target(server_.url())}),
      PushMessage(3, {}),
      PushMessage(4, {tablet.Target(server_.url())}),
  };
  std::vector<std::vector<std::size_t>> reports;
  std::vector<Outcome> outcomes(batch.size());
  channel.SendReporting(batch, [&](std::vector<IndexedOutcome> report) {
    reports.emplace_back();
    for (IndexedOutcome& r : report) {
      reports.back().push_back(r.index);
      outcomes.at(r.index) = std::move(r.outcome);
    }
  });

  ASSERT_GE(reports.size(), 3u);
  EXPECT_EQ(reports.front(), std::vector<std::size_t>{2}) << "nothing to send: reported first";
  EXPECT_EQ(reports.back(), std::vector<std::size_t>{0}) << "the silent endpoint's message last";
  std::vector<std::size_t> all;
  for (const auto& report : reports) all.insert(all.end(), report.begin(), report.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::size_t>{0, 1, 2, 3})) << "each message once";
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kUnknown) << outcomes[0].detail;
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kSent);
  EXPECT_EQ(RequestsFor(phone).size(), 1u);
  EXPECT_EQ(RequestsFor(laptop).size(), 1u) << "each target pushed once";
}

TEST_F(WebPushChannelTest, AtMostMaxInFlightPushRequestsAtOnce) {
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  server_.SetHandler([&](const FakeHttpServer::Request& r) {
    const int now = ++in_flight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(milliseconds(100));  // the push service's latency
    --in_flight;
    return Answer(201, {{"Location", "https://push.example/m" + r.target}});
  });
  WebPushSettings settings = settings_;
  settings.max_in_flight = 2;
  WebPushChannel channel(settings, http_, clock_);
  std::vector<Subscriber> subscribers;
  std::vector<Message> batch;
  for (int i = 1; i <= 10; ++i) {
    subscribers.push_back(Subscriber{i});
    batch.push_back(PushMessage(i, {subscribers.back().Target(server_.url())}));
  }
  const auto outcomes = channel.Send(batch);
  for (const auto& o : outcomes) EXPECT_EQ(o.kind, OutcomeKind::kSent) << o.detail;
  EXPECT_EQ(server_.request_count(), 10u);
  EXPECT_LE(most.load(), 2);
}

TEST_F(WebPushChannelTest, RefusedConnectionRetriesAndTheRetryIsSent) {
  const Subscriber phone{1};
  const std::vector<Message> refused = {PushMessage(12, {phone.Target("http://127.0.0.1:1")})};
  EXPECT_EQ(channel_->Send(refused)[0].kind, OutcomeKind::kRetry);
  const std::vector<Message> reachable = {PushMessage(12, {phone.Target(server_.url())})};
  EXPECT_EQ(channel_->Send(reachable)[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(RequestsFor(phone).size(), 1u);
}

TEST_F(WebPushChannelTest, HttpEndpointsAreRefusedUnlessAllowed) {
  WebPushSettings settings = settings_;
  settings.allow_http_endpoints = false;
  WebPushChannel channel(settings, http_, clock_);
  const Subscriber phone{1};
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url())}),
                                      PushMessage(13, {{7, "not a url", "x", "y"}})};
  const auto outcomes = channel.Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcomes[0].detail.find("https"), std::string::npos);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(server_.request_count(), 0U);
}

// An endpoint a client chose must not make chopar call into its own
// network: checked on the address the name resolves to, before connecting.
TEST_F(WebPushChannelTest, EndpointsOnLocalAddressesAreRefusedWithoutConnecting) {
  const SilentServer silent;  // a TLS handshake with it would hang until the timeout
  WebPushSettings settings = settings_;
  settings.allow_http_endpoints = false;
  settings.timeout = milliseconds(2000);
  WebPushChannel channel(settings, http_, clock_);
  const std::string port = std::to_string(silent.port());
  const Subscriber phone{1}, laptop{2};
  const std::vector<Message> batch = {
      PushMessage(12, {phone.Target("https://127.0.0.1:" + port)}),
      PushMessage(13, {laptop.Target("https://localhost:" + port)})};
  const auto started = std::chrono::steady_clock::now();
  const auto outcomes = channel.Send(batch);
  for (const auto& outcome : outcomes) {
    EXPECT_EQ(outcome.kind, OutcomeKind::kPermanent) << outcome.detail;
    EXPECT_NE(outcome.detail.find("not a public address"), std::string::npos) << outcome.detail;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(1500))
      << "waited for a connection that should not have been made";
}

// A push service's answer is read up to a limit: a huge or endless body
// neither fills memory nor holds the worker until the timeout.
TEST_F(WebPushChannelTest, AHugeAnswerIsReadOnlyUpToTheLimit) {
  const Subscriber phone{1};
  AnswerFor(phone,
            Answer(201, {{"Location", "https://push.example/m/1"}}, std::string(8 << 20, 'x')));
  net::HttpRequest request;
  request.url = server_.url() + phone.Path();
  const auto response = http_.Perform(request);
  EXPECT_EQ(response.status, 201);
  EXPECT_TRUE(response.ok()) << response.error_message;
  EXPECT_LE(response.body.size(), request.max_response_bytes);
  EXPECT_TRUE(response.body_truncated);
  const std::vector<Message> batch = {PushMessage(12, {phone.Target(server_.url())})};
  EXPECT_EQ(channel_->Send(batch)[0].kind, OutcomeKind::kSent);
}

TEST_F(WebPushChannelTest, BadSubscriptionKeysArePermanentWithoutARequest) {
  const Subscriber phone{1};
  PushTarget off_curve = phone.Target(server_.url());
  std::string point = phone.keys.public_key;
  point[40] = static_cast<char>(point[40] ^ 1);
  off_curve.p256dh = core::Base64UrlEncode(point);
  PushTarget bad_auth = phone.Target(server_.url());
  bad_auth.auth = "*";
  const std::vector<Message> batch = {PushMessage(12, {off_curve}), PushMessage(13, {bad_auth})};
  const auto outcomes = channel_->Send(batch);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(server_.request_count(), 0U);
}

TEST_F(WebPushChannelTest, RejectsBadVapidSettings) {
  WebPushSettings settings = settings_;
  settings.vapid_private_key = GenerateVapidKeys().private_key;
  EXPECT_THROW(WebPushChannel(settings, http_, clock_), std::invalid_argument);
  settings = settings_;
  settings.ttl_seconds = 0;
  EXPECT_THROW(WebPushChannel(settings, http_, clock_), std::invalid_argument);
  settings = settings_;
  settings.max_in_flight = 0;
  EXPECT_THROW(WebPushChannel(settings, http_, clock_), std::invalid_argument);
}

TEST(WebPushPlaintextTest, LongBodyIsCutToFitOneRecord) {
  Message m = PushMessage(12, {});
  m.body.clear();
  for (int i = 0; i < 2000; ++i) m.body += "ʻ\"";  // two-byte letters and quotes JSON escapes
  const std::string plaintext = WebPushPlaintext(m, kPublicUrl);
  EXPECT_LE(plaintext.size(), kPushMaxPlaintext);
  const auto json = nlohmann::json::parse(plaintext);  // throws on a cut inside a code point
  const auto body = json["body"].get<std::string>();
  EXPECT_TRUE(body.ends_with("…"));
  EXPECT_TRUE(m.body.starts_with(body.substr(0, body.size() - std::string("…").size())));
  EXPECT_EQ(json["title"], m.title);

  Message small = PushMessage(13, {});
  EXPECT_EQ(WebPushPlaintext(small, kPublicUrl), RenderPushPayload(small, kPublicUrl).dump());
}

// 500 messages to a push service that takes 50 ms per request: one at a time
// that is 25 s. The bound below is a sanity check that requests overlap, far
// from what a loaded machine could reach; the measured time is printed.
TEST_F(WebPushChannelTest, BatchRequestsRunConcurrently) {
  constexpr int kMessages = 500;
  constexpr auto kDelay = milliseconds(50);
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
  server_.SetHandler([&](const FakeHttpServer::Request& r) {
    const int now = ++in_flight;
    int seen = max_in_flight.load();
    while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(kDelay);  // the provider's latency, not synchronisation
    --in_flight;
    return Answer(201, {{"Location", "https://push.example/m" + r.target}});
  });

  std::vector<Subscriber> subscribers;
  std::vector<Message> batch;
  for (int i = 1; i <= kMessages; ++i) {
    subscribers.push_back(Subscriber{i});
    batch.push_back(PushMessage(i, {subscribers.back().Target(server_.url())}));
  }

  const auto start = std::chrono::steady_clock::now();
  const auto outcomes = channel_->Send(batch);
  const auto elapsed = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
  std::printf("[ measure  ] %d push messages, fake latency 50 ms: %lld ms (serial: %lld ms), max in flight %d\n",
              kMessages, static_cast<long long>(elapsed.count()),
              static_cast<long long>(kMessages * kDelay.count()), max_in_flight.load());

  ASSERT_EQ(outcomes.size(), static_cast<std::size_t>(kMessages));
  for (const auto& o : outcomes) ASSERT_EQ(o.kind, OutcomeKind::kSent) << o.detail;
  EXPECT_EQ(server_.request_count(), static_cast<std::size_t>(kMessages));
  EXPECT_GE(max_in_flight.load(), 2);
  EXPECT_LT(elapsed, kMessages * kDelay / 5);

  // Every subscriber got its own notification, readable only with its key.
  std::map<std::string, FakeHttpServer::Request> by_path;
  for (auto& r : server_.requests()) by_path[r.target] = r;
  for (const auto& s : subscribers) {
    ASSERT_EQ(by_path.count(s.Path()), 1U);
    EXPECT_EQ(Decrypt(s, by_path[s.Path()])["id"], s.id);
  }
}

}  // namespace
}  // namespace chopar::channels::webpush
