// The worker with the real Web Push channel on real PostgreSQL: a push
// endpoint is an address a subscriber chose, and one that never answers must
// hold back only its own delivery, not the outcomes of the batch it was
// claimed with.

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "channels/webpush/channel.hpp"
#include "channels/webpush/crypto.hpp"
#include "channels/webpush/vapid.hpp"
#include "core/encoding.hpp"
#include "delivery/test_fixture.hpp"
#include "delivery/test_support.hpp"
#include "delivery/worker.hpp"
#include "net/http_client.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/silent_server.hpp"

namespace chopar::delivery {
namespace {

using chopar::testing::FakeHttpServer;
using chopar::testing::SilentServer;
using std::chrono::milliseconds;
using std::chrono::seconds;

class PushOutcomesTest : public testing::DeliveryPgTest {
 protected:
  // A user whose one push subscription leads to `endpoint`, with a queued
  // push delivery; returns the delivery's id.
  std::int64_t UserPushedTo(std::int64_t user, const std::string& endpoint) {
    AddUser(user);
    const auto keys = channels::webpush::GenerateP256KeyPair();
    Sql("INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth) VALUES (" +
        std::to_string(user) + ", '" + endpoint + "', '" + core::Base64UrlEncode(keys.public_key) +
        "', '" + core::Base64UrlEncode(core::RandomBytes(channels::webpush::kPushAuthSecretSize)) +
        "')");
    return Notify(user, {"push"}).front();
  }

  channels::webpush::WebPushSettings PushSettings(milliseconds timeout) const {
    channels::webpush::WebPushSettings settings;
    settings.vapid_public_key = vapid_.public_key;
    settings.vapid_private_key = vapid_.private_key;
    settings.public_url = "https://chopar.example";
    settings.allow_http_endpoints = true;
    settings.timeout = timeout;
    return settings;
  }

  const channels::webpush::VapidKeys vapid_ = channels::webpush::GenerateVapidKeys();
  FakeHttpServer push_service_{[](const FakeHttpServer::Request& request) {
    FakeHttpServer::Response accepted;
    accepted.status = 201;
    accepted.headers["Location"] = "https://push.example/m" + request.target;
    return accepted;
  }};
  net::HttpClient http_;
  testing::TestChannel other_channels_;
  testing::TopRandom random_;
};

// One claim takes four push deliveries: three to a push service that
// answers at once, one to an endpoint that takes the connection and never
// answers. The three are recorded `sent` while the fourth is still out;
// then the fourth ends on its own timeout as "outcome unknown".
TEST_F(PushOutcomesTest, AnsweredDeliveriesAreRecordedWhileASilentEndpointIsStillOut) {
  const SilentServer silent;
  std::vector<std::int64_t> answered;
  for (std::int64_t user = 1; user <= 3; ++user)
    answered.push_back(UserPushedTo(user, push_service_.url() + "/push/" + std::to_string(user)));
  const std::int64_t stalled = UserPushedTo(4, silent.url() + "/push/4");

  channels::webpush::WebPushChannel push(PushSettings(seconds(5)), http_, clock_);
  Worker worker(*pool_, ChannelSet(other_channels_, other_channels_, push, other_channels_), clock_,
                metrics_, WorkerSettings{}, random_);
  RunStats stats;
  std::thread run([&] { stats = worker.RunOnce(); });

  const bool three_sent = WaitUntil([&] { return CountStatus("sent") == 3; });
  const std::string stalled_meanwhile = Field(stalled, "status");
  run.join();

  ASSERT_TRUE(three_sent) << "the answered deliveries were never recorded";
  EXPECT_EQ(stalled_meanwhile, "sending")
      << "the answered deliveries were recorded only once the silent endpoint's request ended";
  EXPECT_EQ(stats.claimed, 4);
  EXPECT_EQ(stats.sent, 3);
  EXPECT_EQ(stats.failed, 1);
  for (const std::int64_t id : answered) {
    EXPECT_EQ(Field(id, "status"), "sent") << id;
    EXPECT_EQ(Field(id, "attempts"), "1") << id;
  }
  EXPECT_EQ(Field(stalled, "status"), "failed");
  EXPECT_TRUE(Field(stalled, "last_error").starts_with("outcome unknown: webpush: "))
      << Field(stalled, "last_error");
  EXPECT_EQ(push_service_.request_count(), 3u) << "each answered delivery was pushed once";
  EXPECT_EQ(other_channels_.count(), 0u);
}

// A channel that reports a message twice or gives no outcome for one: the
// first report counts, the unreported message is retried.
class ReportsBadly final : public channels::Channel {
 public:
  std::vector<channels::Outcome> Send(std::span<const channels::Message> messages) override {
    return std::vector<channels::Outcome>(messages.size(), channels::Outcome::Sent());
  }
  void SendReporting(std::span<const channels::Message> messages,
                     const channels::OutcomeReport& report) override {
    std::vector<channels::IndexedOutcome> first;
    first.push_back({0, channels::Outcome::Sent("first")});
    report(std::move(first));
    std::vector<channels::IndexedOutcome> again;
    again.push_back({0, channels::Outcome::Permanent("reported twice")});
    again.push_back({messages.size(), channels::Outcome::Sent("out of range")});
    report(std::move(again));
  }
  [[nodiscard]] std::string_view ProviderName() const override { return "bad"; }
};

TEST_F(PushOutcomesTest, AMessageReportedTwiceKeepsItsFirstOutcomeAndAnUnreportedOneIsRetried) {
  AddUser(1);
  Notify(1, {"email"});
  Notify(1, {"email"});
  ReportsBadly channel;
  Worker worker(*pool_, ChannelSet::AllTo(channel), clock_, metrics_, WorkerSettings{}, random_);

  const RunStats stats = worker.RunOnce();

  EXPECT_EQ(stats.claimed, 2);
  EXPECT_EQ(stats.sent, 1);
  EXPECT_EQ(stats.retried, 1);
  EXPECT_EQ(Scalar("SELECT provider_message_id FROM deliveries WHERE status = 'sent'"), "first");
  EXPECT_EQ(Count("SELECT count(*) FROM deliveries WHERE status = 'queued' AND last_error LIKE "
                  "'%: channel gave no outcome for this message%'"),
            1);
}

}  // namespace
}  // namespace chopar::delivery
