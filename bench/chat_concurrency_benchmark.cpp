// Discord, Microsoft Teams, Slack (webhooks and the installed app) and
// WhatsApp throughput: one Send of N
// messages, each to a webhook (a WhatsApp number) of its own, to a local
// service that answers each post after a fixed latency (default 2,000 messages, 50 ms: one at a
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
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "channels/chat/discord.hpp"
#include "channels/chat/msteams.hpp"
#include "channels/chat/slack.hpp"
#include "channels/chat/slack_channel.hpp"
#include "channels/chat/webhook_channel.hpp"
#include "channels/chat/whatsapp_channel.hpp"
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

// What differs between the services: their answer, the channel sending to
// them and the address of message `i`.
struct Service {
  std::string_view name;
  std::function<void(const FakeHttpServer::Request&, FakeHttpServer::Response&)> answer;
  std::function<std::unique_ptr<chopar::channels::Channel>(const std::string& url,
                                                           chopar::net::HttpClient& http)>
      channel;
  std::function<std::string(const std::string& url, int i)> address;
};

Service WebhookService(const ChatFormat& format) {
  return {
      format.provider,
      [&format](const FakeHttpServer::Request& request, FakeHttpServer::Response& response) {
        if (format.provider == "discord") {
          response.body = R"({"id": ")" + std::to_string(request.delivery_id.value_or(0)) + R"("})";
        } else {
          response.content_type = "text/plain";
          response.body = format.provider == "slack" ? "ok" : "1";
        }
      },
      [&format](const std::string&, chopar::net::HttpClient& http) {
        chopar::channels::chat::ChatWebhookSettings settings;
        settings.public_url = "https://chopar.example";
        settings.allow_local_webhooks = true;
        settings.timeout = std::chrono::milliseconds(30000);
        return std::make_unique<chopar::channels::chat::ChatWebhookChannel>(format, settings, http);
      },
      [](const std::string& url, int i) { return url + "/hooks/" + std::to_string(i); }};
}

Service WhatsAppService() {
  return {"whatsapp",
          [](const FakeHttpServer::Request& request, FakeHttpServer::Response& response) {
            response.body = R"({"messages": [{"id": "wamid.)" +
                            std::to_string(request.delivery_id.value_or(0)) + R"("}]})";
          },
          [](const std::string& url, chopar::net::HttpClient& http) {
            chopar::channels::chat::WhatsAppSettings settings;
            settings.api_url = url + "/v21.0";
            settings.phone_number_id = "106540352242922";
            settings.access_token = "bench";
            settings.timeout = std::chrono::milliseconds(30000);
            return std::make_unique<chopar::channels::chat::WhatsAppChannel>(settings, http);
          },
          [](const std::string&, int i) { return "+99890" + std::to_string(1000000 + i); }};
}

// Slack's app form: chat.postMessage with a workspace's bot token, each
// message to a member of its own in one workspace.
Service SlackAppService() {
  return {"slack (installed app)",
          [](const FakeHttpServer::Request& request, FakeHttpServer::Response& response) {
            response.body = R"({"ok": true, "channel": "D0BENCH01", "ts": "1765000000.)" +
                            std::to_string(request.delivery_id.value_or(0)) + R"("})";
          },
          [](const std::string& url, chopar::net::HttpClient& http) {
            chopar::channels::chat::ChatWebhookSettings settings;
            settings.public_url = "https://chopar.example";
            settings.timeout = std::chrono::milliseconds(30000);
            chopar::channels::chat::SlackWorkspaceAccess workspaces{
                url + "/api",
                [](std::string_view) { return std::optional<std::string>("xoxb-bench"); }};
            return std::make_unique<chopar::channels::chat::SlackChannel>(settings, workspaces,
                                                                          http);
          },
          [](const std::string&, int i) { return "T0BENCH001/U" + std::to_string(100000000 + i); }};
}

bool Run(const Service& service, int messages, int latency_ms) {
  chopar::bench::InFlightGauge in_flight;
  FakeHttpServer server([&](const FakeHttpServer::Request& request) {
    const chopar::bench::InFlightGauge::Hold held(in_flight);
    std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
    FakeHttpServer::Response response;
    service.answer(request, response);
    return response;
  });

  std::vector<Message> batch;
  batch.reserve(static_cast<std::size_t>(messages));
  for (int i = 1; i <= messages; ++i) {
    Message m = chopar::bench::SampleMessage(i, chopar::core::ChannelKind::kEmail);
    m.address = service.address(server.url(), i);
    batch.push_back(std::move(m));
  }
  chopar::net::HttpClient http;
  const auto channel = service.channel(server.url(), http);

  const auto start = Clock::now();
  const auto outcomes = channel->Send(batch);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const auto sent = std::count_if(outcomes.begin(), outcomes.end(),
                                  [](const auto& o) { return o.kind == OutcomeKind::kSent; });

  std::printf("%.*s: %d messages to %d addresses, service latency %d ms\n",
              static_cast<int>(service.name.size()), service.name.data(), messages, messages,
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
  bool all_sent = true;
  for (const Service& service : {WebhookService(chopar::channels::chat::kDiscordFormat),
                                 WebhookService(chopar::channels::chat::kTeamsFormat),
                                 WebhookService(chopar::channels::chat::kSlackFormat),
                                 SlackAppService(), WhatsAppService()}) {
    all_sent = Run(service, messages, latency_ms) && all_sent;
  }
  return all_sent ? 0 : 1;
}
