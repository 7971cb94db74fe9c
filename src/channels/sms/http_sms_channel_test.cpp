#include "channels/sms/http_sms_channel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "channels/render.hpp"
#include "channels/sms/sms_api_test_support.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::sms {
namespace {

using namespace std::chrono_literals;
using chopar::testing::FakeHttpServer;
using testing::Sms;

// A gateway that takes the text as the body of POST {url}/send and answers
// with what the fake says.
SmsApi PlainApi(const std::string& url, std::size_t max_in_flight) {
  SmsApi api;
  api.provider = "plain";
  api.request = [url](const Message& m, const std::string& text) {
    net::HttpRequest call;
    call.url = url + "/send?to=" + PhoneDigits(*m.phone);
    call.body = text;
    return call;
  };
  api.outcome = [](const net::HttpResponse& response, std::chrono::system_clock::time_point) {
    return response.status == 200 ? Outcome::Sent(response.body) : Outcome::Permanent("refused");
  };
  api.timeout = 5s;
  api.max_in_flight = max_in_flight;
  return api;
}

// Counts the calls a fake is answering at once.
class Concurrency {
 public:
  FakeHttpServer::Response Answer(const FakeHttpServer::Request& request) {
    {
      std::lock_guard lock(mutex_);
      most_ = std::max(most_, ++now_);
    }
    // Long enough for every call that may start to have started.
    std::this_thread::sleep_for(300ms);
    {
      std::lock_guard lock(mutex_);
      --now_;
    }
    FakeHttpServer::Response response;
    response.body = "id-" + std::to_string(request.delivery_id.value_or(0));
    return response;
  }
  int most() {
    std::lock_guard lock(mutex_);
    return most_;
  }

 private:
  std::mutex mutex_;
  int now_ = 0;
  int most_ = 0;
};

TEST(HttpSmsChannelTest, SendsABatchAtOnceButNoMoreThanMaxInFlight) {
  Concurrency concurrency;
  FakeHttpServer gateway(
      [&](const FakeHttpServer::Request& request) { return concurrency.Answer(request); });
  std::vector<Message> batch;
  for (int i = 1; i <= 6; ++i) batch.push_back(Sms(i, "+99890123456" + std::to_string(i)));
  const auto outcomes = testing::SendAll(PlainApi(gateway.url(), 3), batch);
  ASSERT_EQ(outcomes.size(), 6u);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    EXPECT_EQ(outcomes[i].kind, OutcomeKind::kSent) << outcomes[i].detail;
    EXPECT_EQ(outcomes[i].provider_message_id, "id-" + std::to_string(i + 1));
  }
  EXPECT_EQ(concurrency.most(), 3);
  EXPECT_EQ(gateway.request_count(), 6u);
}

TEST(HttpSmsChannelTest, TheTextIsRenderSmsTextsCutToTheLimit) {
  FakeHttpServer gateway([](const FakeHttpServer::Request&) { return FakeHttpServer::Response{}; });
  net::HttpClient http;
  HttpSmsChannel channel(PlainApi(gateway.url(), 4), {"https://app.acme.uz", 40}, http);
  Message m = Sms(5, "+998901234567");
  m.link.reset();
  ASSERT_EQ(channel.Send(std::span<const Message>(&m, 1)).at(0).kind, OutcomeKind::kSent);
  const auto requests = gateway.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, RenderSmsText(m, "https://app.acme.uz", 40));
  EXPECT_EQ(requests[0].body, "Hisobot muddati yaqin: Hisobotni juma k…");
  EXPECT_EQ(requests[0].target, "/send?to=998901234567");
}

TEST(HttpSmsChannelTest, ANameChosenByChoparIsTheSentIdWhenTheGatewayGivesNone) {
  FakeHttpServer gateway([](const FakeHttpServer::Request&) { return FakeHttpServer::Response{}; });
  SmsApi api = PlainApi(gateway.url(), 4);
  api.outcome = [](const net::HttpResponse& response, std::chrono::system_clock::time_point) {
    return response.status == 200 ? Outcome::Sent() : Outcome::Permanent("refused");
  };
  api.message_id = [](const Message& m) { return "ours-" + std::to_string(m.delivery_id); };
  const std::vector<Message> batch = {Sms(8, "+998901234567"), Sms(9, std::nullopt)};
  const auto outcomes = testing::SendAll(std::move(api), batch);
  EXPECT_EQ(outcomes[0].provider_message_id, "ours-8");
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kPermanent);
  EXPECT_FALSE(outcomes[1].provider_message_id);
}

TEST(HttpSmsChannelTest, PhoneDigitsKeepsOnlyDigits) {
  EXPECT_EQ(PhoneDigits("+998 (90) 123-45-67"), "998901234567");
  EXPECT_EQ(PhoneDigits("+"), "");
}

}  // namespace
}  // namespace chopar::channels::sms
