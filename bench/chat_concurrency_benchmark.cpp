// Discord, Microsoft Teams and Slack throughput: one ChatWebhookChannel::Send of N
// messages, each to a webhook of its own, to a local service that answers
// each post after a fixed latency (default 2,000 messages, 50 ms: one at a
// time that is 100 s) — the figures of the other providers'
// benchmarks (bench/providers.sh), at the same concurrency.
//
//   chat_concurrency_benchmark [messages=2000] [latency_ms=50]
//
// Exits non-zero when a message is not sent; figures never fail the run.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "channels/chat/discord.hpp"
#include "channels/chat/msteams.hpp"
#include "channels/chat/slack.hpp"
#include "channels/chat/webhook_channel.hpp"
#include "in_flight_gauge.hpp"
#include "net/http_client.hpp"
#include "sample_message.hpp"
#include "testing/fake_http_server.hpp"

namespace {

using chopar::channels::Message;
using chopar::channels::OutcomeKind;
using chopar::channels::chat::ChatFormat;
using chopar::testing::FakeHttpServer;
using Clock = std::chrono::steady_clock;

bool Run(const ChatFormat& format, int messages, int latency_ms) {
  chopar::bench::InFlightGauge in_flight;
  FakeHttpServer server([&](const FakeHttpServer::Request& request) {
    const chopar::bench::InFlightGauge::Hold held(in_flight);
    std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
    FakeHttpServer::Response response;
    if (format.provider == "discord") {
      response.body = R"({"id": ")" + std::to_string(request.delivery_id.value_or(0)) + R"("})";
    } else {
      response.content_type = "text/plain";
      response.body = format.provider == "slack" ? "ok" : "1";
    }
    return response;
  });

  std::vector<Message> batch;
  batch.reserve(static_cast<std::size_t>(messages));
  for (int i = 1; i <= messages; ++i) {
    Message m = chopar::bench::SampleMessage(i, chopar::core::ChannelKind::kEmail);
    m.address = server.url() + "/hooks/" + std::to_string(i);
    batch.push_back(std::move(m));
  }
  chopar::channels::chat::ChatWebhookSettings settings;
  settings.public_url = "https://chopar.example";
  settings.allow_local_webhooks = true;
  settings.timeout = std::chrono::milliseconds(30000);
  chopar::net::HttpClient http;
  chopar::channels::chat::ChatWebhookChannel channel(format, settings, http);

  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const auto sent = std::count_if(outcomes.begin(), outcomes.end(),
                                  [](const auto& o) { return o.kind == OutcomeKind::kSent; });

  std::printf("%.*s: %d messages to %d webhooks, service latency %d ms\n",
              static_cast<int>(format.provider.size()), format.provider.data(), messages, messages,
              latency_ms);
  std::printf(
      "  one Send():        %.0f ms (one at a time: %d ms), %ld sent, max %d requests in flight\n",
      elapsed_ms, messages * latency_ms, static_cast<long>(sent), in_flight.max());
  std::printf("  throughput:        %.0f posts/s\n", messages / (elapsed_ms / 1000.0));
  for (const auto& o : outcomes) {
    if (o.kind != OutcomeKind::kSent) {
      std::printf("  not sent: %s\n", o.detail.c_str());
      break;
    }
  }
  return sent == messages;
}

}  // namespace

int main(int argc, char** argv) {
  const int messages = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const int latency_ms = argc > 2 ? std::max(0, std::atoi(argv[2])) : 50;
  const bool discord = Run(chopar::channels::chat::kDiscordFormat, messages, latency_ms);
  const bool teams = Run(chopar::channels::chat::kTeamsFormat, messages, latency_ms);
  const bool slack = Run(chopar::channels::chat::kSlackFormat, messages, latency_ms);
  return discord && teams && slack ? 0 : 1;
}
