#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "channels/sms/http_sms_channel.hpp"
#include "testing/fake_http_server.hpp"

// What the tests of the SMS gateways called over HTTP (Twilio, Playmobile)
// share: a message, its expected text, sending it, and the checks every
// gateway's channel must pass.
namespace chopar::channels::sms::testing {

inline constexpr char kPublicUrl[] = "https://app.acme.uz/";

// An SMS of delivery `delivery_id` to `phone` (none: no phone number).
inline Message Sms(std::int64_t delivery_id, std::optional<std::string> phone) {
  Message m;
  m.delivery_id = delivery_id;
  m.notification_id = 1000 + delivery_id;
  m.user_id = 7;
  m.channel = core::ChannelKind::kSms;
  m.attempt = 2;
  m.type = "task.due";
  m.title = "Hisobot muddati yaqin";
  m.body = "Hisobotni juma kuni topshiring.";
  m.link = "/tasks/42";
  m.locale = "uz";
  m.phone = std::move(phone);
  return m;
}

// The text HttpSmsChannel sends for Sms(…), written out: a test of the
// request then fails if the rendering changes under it.
inline constexpr char kSmsText[] =
    "Hisobot muddati yaqin: Hisobotni juma kuni topshiring. https://app.acme.uz/tasks/42";

// `messages` sent in one batch through `api`; their outcomes.
inline std::vector<Outcome> SendAll(SmsApi api, std::span<const Message> messages) {
  static net::HttpClient http;
  HttpSmsChannel channel(std::move(api), {kPublicUrl, 300}, http);
  return channel.Send(messages);
}

inline Outcome SendAlone(SmsApi api, const Message& m) {
  return SendAll(std::move(api), std::span<const Message>(&m, 1)).at(0);
}

using chopar::testing::FakeHttpServer;

// A gateway's API whose calls go to `base_url`.
using ApiAt = std::function<SmsApi(const std::string& base_url)>;
// A gateway's fake: checks a call as the real gateway does (path,
// credentials, body) and returns its refusal, or `answer` if it passes.
using FakeGateway = std::function<FakeHttpServer::Response(const FakeHttpServer::Request& request,
                                                           const FakeHttpServer::Response& answer)>;

// One answer of a gateway and what the channel must make of it.
struct AnswerCase {
  FakeHttpServer::Response answer;
  OutcomeKind kind;
  std::string detail;
  std::optional<std::chrono::seconds> retry_after{};
};

// Sends an SMS through `api_at` to a `gateway` that answers with each case's
// answer in turn, and checks the outcome against the case.
inline void ExpectOutcomes(const ApiAt& api_at, const FakeGateway& gateway,
                           const std::vector<AnswerCase>& cases) {
  for (const AnswerCase& c : cases) {
    FakeHttpServer server(
        [&](const FakeHttpServer::Request& request) { return gateway(request, c.answer); });
    const Outcome outcome = SendAlone(api_at(server.url()), Sms(1, "+998901234567"));
    EXPECT_EQ(outcome.kind, c.kind) << outcome.detail;
    EXPECT_EQ(outcome.detail, c.detail);
    EXPECT_EQ(outcome.retry_after, c.retry_after) << c.detail;
    EXPECT_FALSE(outcome.provider_message_id) << c.detail;
  }
}

// A gateway that read the call and never answered: the SMS may have gone
// out, so the outcome is unknown and final, never Retry, and it was sent
// once. The gateway is silent past the call's timeout (cut to 500 ms).
inline void ExpectNoAnswerIsOutcomeUnknown(const ApiAt& api_at, const std::string& provider) {
  FakeHttpServer server([](const FakeHttpServer::Request&) {
    FakeHttpServer::Response response;
    response.delay = std::chrono::seconds(3);
    return response;
  });
  SmsApi api = api_at(server.url());
  api.timeout = std::chrono::milliseconds(500);
  const Outcome outcome = SendAlone(std::move(api), Sms(1, "+998901234567"));
  EXPECT_EQ(outcome.kind, OutcomeKind::kUnknown) << outcome.detail;
  EXPECT_TRUE(outcome.detail.starts_with("outcome unknown: " + provider + ": ")) << outcome.detail;
  EXPECT_EQ(server.request_count(), 1u);
}

// A connection refused (nothing listens on the port): nothing was written,
// so the SMS is retried.
inline void ExpectARefusedConnectionRetries(const ApiAt& api_at, const std::string& provider) {
  std::string closed_url;
  {
    const FakeHttpServer stopped(
        [](const FakeHttpServer::Request&) { return FakeHttpServer::Response{}; });
    closed_url = stopped.url();
  }
  const Outcome outcome = SendAlone(api_at(closed_url), Sms(1, "+998901234567"));
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry) << outcome.detail;
  EXPECT_TRUE(outcome.detail.starts_with(provider + ": ")) << outcome.detail;
}

// A message without a phone number fails without a call; the rest of its
// batch is sent.
inline void ExpectNoPhoneNumberFailsWithoutACall(const ApiAt& api_at, const FakeGateway& gateway,
                                                 const FakeHttpServer::Response& accepted,
                                                 const std::string& provider) {
  FakeHttpServer server(
      [&](const FakeHttpServer::Request& request) { return gateway(request, accepted); });
  const std::vector<Message> batch = {Sms(1, std::nullopt), Sms(2, "+998901234567"),
                                      Sms(3, "no digits")};
  const auto outcomes = SendAll(api_at(server.url()), batch);
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[0].detail, provider + ": no phone number");
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kSent) << outcomes[1].detail;
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kPermanent);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].delivery_id, 2);
}

// `make` accepts `good` settings and refuses (std::invalid_argument) each
// made from them by one of `spoils`.
template <typename Settings, typename Make>
void ExpectEachSpoiledSettingsRefused(const Settings& good, const Make& make,
                                      const std::vector<std::function<void(Settings&)>>& spoils) {
  EXPECT_NO_THROW(make(good));
  for (std::size_t i = 0; i < spoils.size(); ++i) {
    Settings spoiled = good;
    spoils[i](spoiled);
    EXPECT_THROW(make(spoiled), std::invalid_argument) << "spoil " << i;
  }
}

}  // namespace chopar::channels::sms::testing
