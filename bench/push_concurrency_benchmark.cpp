// Web Push throughput: one WebPushChannel::Send of N messages to a local
// push service that answers each request after a fixed latency (default
// 2,000 messages, 50 ms: one at a time that is 100 s). Also the cost of the
// per-request cryptography alone (ephemeral ECDH + HKDF + AES-GCM).
//
//   push_concurrency_benchmark [messages=2000] [latency_ms=50] [subscriptions_per_user=1]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "channels/webpush/channel.hpp"
#include "channels/webpush/crypto.hpp"
#include "channels/webpush/vapid.hpp"
#include "core/clock.hpp"
#include "core/encoding.hpp"
#include "in_flight_gauge.hpp"
#include "net/http_client.hpp"
#include "sample_message.hpp"
#include "testing/fake_http_server.hpp"

namespace {

using chopar::channels::Message;
using chopar::channels::OutcomeKind;
using chopar::testing::FakeHttpServer;
using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int messages = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int latency_ms = argc > 2 ? std::atoi(argv[2]) : 50;
  const int per_user = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;

  chopar::bench::InFlightGauge in_flight;
  FakeHttpServer server([&](const FakeHttpServer::Request& request) {
    const chopar::bench::InFlightGauge::Hold held(in_flight);
    std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
    FakeHttpServer::Response response;
    response.status = 201;
    response.headers["Location"] = "https://push.example/m" + request.target;
    return response;
  });

  // Subscriptions share one browser key pair: key generation is the
  // browser's cost, not ours, and is kept out of the measurement.
  const auto browser = chopar::channels::webpush::GenerateP256KeyPair();
  const std::string p256dh = chopar::core::Base64UrlEncode(browser.public_key);
  const std::string auth = chopar::core::Base64UrlEncode(chopar::core::RandomBytes(16));

  std::vector<Message> batch;
  batch.reserve(static_cast<std::size_t>(messages));
  for (int i = 1; i <= messages; ++i) {
    Message m = chopar::bench::SampleMessage(i, chopar::core::ChannelKind::kPush);
    for (int s = 0; s < per_user; ++s) {
      const std::int64_t id = static_cast<std::int64_t>(i) * per_user + s;
      m.push_targets.push_back({id, server.url() + "/push/" + std::to_string(id), p256dh, auth});
    }
    batch.push_back(std::move(m));
  }

  const auto keys = chopar::channels::webpush::GenerateVapidKeys();
  chopar::channels::webpush::WebPushSettings settings;
  settings.vapid_public_key = keys.public_key;
  settings.vapid_private_key = keys.private_key;
  settings.subject = "mailto:bench@example.com";
  settings.public_url = "https://chopar.example";
  settings.allow_http_endpoints = true;
  settings.timeout = std::chrono::milliseconds(30000);
  chopar::net::HttpClient http;
  const chopar::core::SystemClock clock;
  chopar::channels::webpush::WebPushChannel channel(settings, http, clock);

  // The cryptography alone, on this thread.
  const std::string plaintext =
      chopar::channels::webpush::WebPushPlaintext(batch.front(), settings.public_url);
  const auto crypto_start = Clock::now();
  for (int i = 0; i < messages; ++i) {
    (void)chopar::channels::webpush::EncryptPushPayload(plaintext, browser.public_key,
                                                        *chopar::core::Base64UrlDecode(auth));
  }
  const double crypto_ms = MillisSince(crypto_start);

  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const double elapsed_ms = MillisSince(start);
  const auto sent = std::count_if(outcomes.begin(), outcomes.end(),
                                  [](const auto& o) { return o.kind == OutcomeKind::kSent; });
  const int requests = messages * per_user;

  std::printf("push: %d messages x %d subscription(s) = %d requests, service latency %d ms\n",
              messages, per_user, requests, latency_ms);
  std::printf(
      "  one Send():        %.0f ms (one at a time: %d ms), %ld sent, max %d requests in flight\n",
      elapsed_ms, requests * latency_ms, static_cast<long>(sent), in_flight.max());
  std::printf("  throughput:        %.0f requests/s\n", requests / (elapsed_ms / 1000.0));
  std::printf("  encryption alone:  %.3f ms per request (%d on one thread in %.0f ms)\n",
              crypto_ms / messages, messages, crypto_ms);
  return sent == messages ? 0 : 1;
}
