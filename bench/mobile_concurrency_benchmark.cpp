// Mobile push throughput: one MobileChannel::Send of N messages, each to a
// device of its own — (a) Android devices through FCM, to a local fake of
// messages:send that answers each request after a fixed latency (default
// 2,000 messages, 50 ms: one at a time that is 100 s), the access token
// fetched once from the fake's token endpoint; (b) iPhones through APNs over
// HTTP/2 and TLS, to a local fake that answers at once (the fake serves a
// connection's streams one after the other, so a latency there would
// measure the fake): the cost of chopar's side of the HTTP/2 path, the
// provider token signed once.
//
//   mobile_concurrency_benchmark [messages=2000] [latency_ms=50]
//
// Exits non-zero when a message is not sent; figures never fail the run.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "channels/mobile/mobile_channel.hpp"
#include "in_flight_gauge.hpp"
#include "sample_message.hpp"
#include "testing/fake_h2_server.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/test_keys.hpp"

namespace {

using chopar::channels::Message;
using chopar::channels::OutcomeKind;
using chopar::testing::FakeH2Server;
using chopar::testing::FakeHttpServer;
using Clock = std::chrono::steady_clock;

chopar::channels::mobile::MobileSettings Settings(const FakeHttpServer& fcm,
                                                  const FakeH2Server& apns) {
  chopar::channels::mobile::MobileSettings settings;
  settings.public_url = "https://chopar.example";
  settings.fcm_url = fcm.url();
  settings.apns_url = apns.url();
  settings.apns_topic = "uz.example.app";
  settings.apns_ca_file = apns.ca_file();
  settings.timeout = std::chrono::milliseconds(30000);
  return settings;
}

bool Report(const char* what, int messages, double elapsed_ms,
            const std::vector<chopar::channels::Outcome>& outcomes, int max_in_flight,
            int one_at_a_time_ms) {
  const auto sent = std::count_if(outcomes.begin(), outcomes.end(),
                                  [](const auto& o) { return o.kind == OutcomeKind::kSent; });
  std::printf("%s: %d messages to %d devices\n", what, messages, messages);
  if (one_at_a_time_ms > 0) {
    std::printf("  one Send():        %.0f ms (one at a time: %d ms), %ld sent, max %d in flight\n",
                elapsed_ms, one_at_a_time_ms, static_cast<long>(sent), max_in_flight);
  } else {
    std::printf("  one Send():        %.0f ms, %ld sent (%.3f ms a message)\n", elapsed_ms,
                static_cast<long>(sent), elapsed_ms / messages);
  }
  std::printf("  throughput:        %.0f messages/s\n", messages / (elapsed_ms / 1000.0));
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

  chopar::bench::InFlightGauge in_flight;
  FakeHttpServer fcm([&](const FakeHttpServer::Request& request) {
    FakeHttpServer::Response response;
    if (request.target == "/token") {
      response.body = R"({"access_token": "ya29.bench", "expires_in": 3599, "token_type": "Bearer"})";
      return response;
    }
    const chopar::bench::InFlightGauge::Hold held(in_flight);
    std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms));
    response.body = R"({"name": "projects/bench/messages/1"})";
    return response;
  });
  FakeH2Server apns([](const FakeH2Server::Request&) {
    return FakeH2Server::Response{200, {{"apns-id", "EC1BF194-B3B2-424A-89A7-3A6A1C8FD2A5"}}, ""};
  });

  const nlohmann::json account = {{"type", "service_account"},
                                  {"project_id", "bench"},
                                  {"private_key", chopar::testing::NewRsaKeyPem()},
                                  {"client_email", "bench@bench.iam.gserviceaccount.com"},
                                  {"token_uri", fcm.url() + "/token"}};
  chopar::core::SystemClock clock;
  chopar::net::HttpClient http;
  chopar::channels::mobile::MobileChannel channel(
      Settings(fcm, apns),
      std::make_unique<chopar::channels::mobile::FcmTokenSource>(
          chopar::channels::mobile::ParseServiceAccountKey(account.dump()), http, clock),
      std::make_unique<chopar::channels::mobile::ApnsTokenCache>(
          chopar::channels::mobile::LoadApnsKey(chopar::testing::NewP256KeyPem(), "ABC123DEFG",
                                                "DEF123GHIJ"),
          clock),
      http, clock);

  bool all_sent = true;
  for (const bool ios : {false, true}) {
    std::vector<Message> batch;
    batch.reserve(static_cast<std::size_t>(messages));
    for (int i = 1; i <= messages; ++i) {
      Message m = chopar::bench::SampleMessage(i, chopar::core::ChannelKind::kEmail);
      if (ios) {
        char token[65];
        std::snprintf(token, sizeof token, "%064x", i);
        m.device_targets.push_back({i, "ios", token, ""});
      } else {
        m.device_targets.push_back({i, "android", "fcm:bench_" + std::to_string(i), ""});
      }
      batch.push_back(std::move(m));
    }
    const auto start = Clock::now();
    const auto outcomes = channel.Send(batch);
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    all_sent = Report(ios ? "apns (HTTP/2, the fake answers at once)"
                          : "fcm (HTTP/1.1 fake, its latency per request)",
                      messages, elapsed_ms, outcomes, ios ? 0 : in_flight.max(),
                      ios ? 0 : messages * latency_ms) &&
               all_sent;
  }
  return all_sent ? 0 : 1;
}
