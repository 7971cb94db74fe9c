// SMS gateways and failover: one Send() of N messages through Twilio's and
// Playmobile's APIs (HttpSmsChannel) to a local fake answering each call
// after a fixed latency (default 2,000 messages, 50 ms), at the default 64
// in flight; then the same batch through a FailoverChannel of two Twilio
// entries, first with both up (the wrapper's own cost), then with the
// first refusing every connection (each message tried there, then sent by
// the second), then with the first's circuit open (skipped at once).
// The ceiling of 64 calls in flight at 50 ms is 1,280 messages/s.
//
//   sms_concurrency_benchmark [messages=2000] [latency_ms=50]
//
// Exits non-zero when a message is not sent; figures never fail the run.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "channels/failover_channel.hpp"
#include "channels/sms/http_sms_channel.hpp"
#include "channels/sms/playmobile.hpp"
#include "channels/sms/twilio.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"
#include "sample_message.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"

namespace {

using chopar::channels::Channel;
using chopar::channels::Message;
using chopar::channels::OutcomeKind;
using chopar::channels::sms::HttpSmsChannel;
using chopar::testing::FakeHttpServer;
using Clock = std::chrono::steady_clock;

std::vector<Message> Batch(int count) {
  std::vector<Message> batch;
  batch.reserve(static_cast<std::size_t>(count));
  for (int i = 1; i <= count; ++i) {
    Message m = chopar::bench::SampleMessage(i, chopar::core::ChannelKind::kSms);
    m.phone = "+99890" + std::to_string(1000000 + i);
    batch.push_back(std::move(m));
  }
  return batch;
}

std::unique_ptr<FakeHttpServer> Gateway(std::chrono::milliseconds latency, int status,
                                        std::string answer) {
  return std::make_unique<FakeHttpServer>([latency, status, answer](const auto&) {
    std::this_thread::sleep_for(latency);
    FakeHttpServer::Response response;
    response.status = status;
    response.body = answer;
    return response;
  });
}

std::unique_ptr<Channel> Twilio(const std::string& url, chopar::net::HttpClient& http) {
  chopar::channels::sms::TwilioSettings settings;
  settings.account_sid = "ACbench";
  settings.auth_token = "bench-token";
  settings.from = "+15005550006";
  settings.base_url = url;
  return std::make_unique<HttpSmsChannel>(chopar::channels::sms::TwilioApi(settings),
                                          chopar::channels::sms::SmsText{}, http);
}

// One Send() of `batch` through `channel`; true when every message was sent.
bool Measure(const char* name, Channel& channel, const std::vector<Message>& batch,
             std::chrono::milliseconds latency) {
  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  const auto sent = std::count_if(outcomes.begin(), outcomes.end(),
                                  [](const auto& o) { return o.kind == OutcomeKind::kSent; });
  const double ceiling =
      64.0 * 1000.0 / static_cast<double>(std::max<long long>(latency.count(), 1));
  std::printf(
      "%-34s %zu messages, latency %lld ms: %.2f s, %ld sent, %.0f messages/s (%.1f %% of "
      "the 64-in-flight ceiling)\n",
      name, batch.size(), static_cast<long long>(latency.count()), elapsed_s,
      static_cast<long>(sent), batch.size() / elapsed_s,
      100.0 * batch.size() / elapsed_s / ceiling);
  for (const auto& o : outcomes) {
    if (o.kind != OutcomeKind::kSent) {
      std::printf("  not sent: %s\n", o.detail.c_str());
      break;
    }
  }
  return static_cast<std::size_t>(sent) == batch.size();
}

}  // namespace

int main(int argc, char** argv) {
  const int messages = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const auto latency = std::chrono::milliseconds(argc > 2 ? std::max(0, std::atoi(argv[2])) : 50);
  const auto batch = Batch(messages);
  const chopar::core::SystemClock clock;
  chopar::net::HttpClient http;
  bool ok = true;

  auto twilio = Gateway(latency, 201, R"({"sid": "SMbench", "status": "queued"})");
  auto backup = Gateway(latency, 201, R"({"sid": "SMbackup", "status": "queued"})");
  auto playmobile = Gateway(latency, 200, "Request is received");
  {
    auto channel = Twilio(twilio->url(), http);
    ok = Measure("twilio", *channel, batch, latency) && ok;
  }
  {
    chopar::channels::sms::PlaymobileSettings settings;
    settings.login = "bench";
    settings.password = "bench";
    settings.base_url = playmobile->url();
    HttpSmsChannel channel(chopar::channels::sms::PlaymobileApi(settings), {}, http);
    ok = Measure("playmobile", channel, batch, latency) && ok;
  }
  const auto pair = [&](const std::string& first_url, int threshold) {
    std::vector<chopar::channels::ProviderSlot> slots;
    slots.push_back(
        {"first", "twilio", Twilio(first_url, http), 0, {threshold, std::chrono::seconds(600)}});
    slots.push_back({"second", "twilio", Twilio(backup->url(), http), 0, {}});
    return std::make_unique<chopar::channels::FailoverChannel>("sms", std::move(slots), clock,
                                                               nullptr);
  };
  {
    auto channel = pair(twilio->url(), 1000000);
    ok = Measure("failover, first up", *channel, batch, latency) && ok;
  }
  const std::string closed =
      "http://127.0.0.1:" + std::to_string(chopar::testing::FreeLoopbackPort());
  {
    auto channel = pair(closed, 1000000);
    ok = Measure("failover, first refusing", *channel, batch, latency) && ok;
  }
  {
    auto channel = pair(closed, 1);
    (void)channel->Send(std::vector<Message>(batch.begin(), batch.begin() + 1));  // opens it
    ok = Measure("failover, first's circuit open", *channel, batch, latency) && ok;
  }
  return ok ? 0 : 1;
}
