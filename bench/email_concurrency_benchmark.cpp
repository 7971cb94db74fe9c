// Email concurrency: one EmailChannel::Send of N messages to a local SMTP
// server that answers the end of each message's DATA after a fixed latency
// (default 2,000 messages, 50 ms: one at a time that is 100 s), once per
// max_in_flight given (default 64, the setting's default, and 200); then
// the same batch through Amazon SES's, Mailgun's, Postmark's and SendGrid's
// APIs (HttpEmailChannel: the same composed message, as SigV4-signed JSON,
// a multipart form or JSON parts) to a local API answering each call after
// the same latency, at 64 in flight.
//
//   email_concurrency_benchmark [messages=2000] [latency_ms=50] [max_in_flight=64 200 ...]
//
// Exits non-zero when a message is not sent; figures never fail the run.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "channels/email/channel.hpp"
#include "channels/email/mailgun.hpp"
#include "channels/email/postmark.hpp"
#include "channels/email/sendgrid.hpp"
#include "channels/email/ses.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"
#include "sample_message.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/fake_smtp_server.hpp"

namespace {

using chopar::channels::Message;
using chopar::channels::OutcomeKind;
using chopar::channels::email::EmailChannel;
using chopar::channels::email::EmailSettings;
using chopar::testing::FakeSmtpServer;
using Clock = std::chrono::steady_clock;

std::vector<Message> Batch(int count) {
  std::vector<Message> batch;
  batch.reserve(static_cast<std::size_t>(count));
  for (int i = 1; i <= count; ++i) {
    Message m = chopar::bench::SampleMessage(i, chopar::core::ChannelKind::kEmail);
    m.email = "user" + std::to_string(i) + "@example.uz";
    batch.push_back(std::move(m));
  }
  return batch;
}

// One Send() against a fresh server, so its connection counts are this
// run's alone. True when every message was sent.
bool Run(const std::vector<Message>& batch, std::chrono::milliseconds latency,
         std::size_t max_in_flight, const chopar::core::Clock& clock) {
  // Only the end of DATA is slow: the server takes the message, then
  // "works" on it, as a relay does before its 250.
  FakeSmtpServer server([latency](FakeSmtpServer::Stage stage, const FakeSmtpServer::Session&) {
    FakeSmtpServer::Action action;
    if (stage == FakeSmtpServer::Stage::kDataEnd) action.delay = latency;
    return action;
  });
  EmailSettings settings;
  settings.smtp_url = server.url();
  settings.from = "chopar <noreply@chopar.example.uz>";
  settings.public_url = "https://app.example.uz/";
  settings.timeout = std::chrono::seconds(60);
  settings.max_in_flight = max_in_flight;
  EmailChannel channel(settings, clock);

  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();

  const auto messages = batch.size();
  const auto rounds = (messages + max_in_flight - 1) / max_in_flight;
  std::printf("email: %zu messages, server latency %lld ms, max_in_flight %zu\n", messages,
              static_cast<long long>(latency.count()), max_in_flight);
  std::printf("  one Send():      %.2f s (one at a time: %.0f s; %zu rounds of latency: %.2f s)\n",
              elapsed_s, messages * latency.count() / 1000.0, rounds,
              rounds * latency.count() / 1000.0);
  std::printf("  connections:     %d at once at most, %d opened\n", server.peak_connections(),
              server.connections());
  std::printf("  throughput:      %.0f messages/s\n", messages / elapsed_s);

  int failed = 0;
  for (const auto& outcome : outcomes) {
    if (outcome.kind == OutcomeKind::kSent) continue;
    if (++failed <= 3) std::printf("  not sent: %s\n", outcome.detail.c_str());
  }
  if (failed > 0) std::printf("  %d of %zu not sent\n", failed, messages);
  return failed == 0 && server.message_count() == messages;
}

// The same batch through an email service's HTTP API (`api` built for the
// fake's URL): one call each, answered after `latency`.
bool RunApi(const char* name, const std::vector<Message>& batch, std::chrono::milliseconds latency,
            std::size_t max_in_flight, const chopar::core::Clock& clock,
            const std::function<chopar::channels::email::EmailApi(const std::string& url)>& api,
            const std::string& answer, int status = 200) {
  chopar::testing::FakeHttpServer server([latency, answer, status](const auto&) {
    std::this_thread::sleep_for(latency);
    chopar::testing::FakeHttpServer::Response response;
    response.status = status;
    response.body = answer;
    return response;
  });
  EmailSettings settings;
  settings.from = "chopar <noreply@chopar.example.uz>";
  settings.public_url = "https://app.example.uz/";
  settings.timeout = std::chrono::seconds(60);
  settings.max_in_flight = max_in_flight;
  chopar::net::HttpClient http;
  chopar::channels::email::HttpEmailChannel channel(settings, api(server.url()), http, clock);

  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const double elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  const auto sent = std::count_if(outcomes.begin(), outcomes.end(),
                                  [](const auto& o) { return o.kind == OutcomeKind::kSent; });
  std::printf("%s: %zu messages, API latency %lld ms, max_in_flight %zu\n", name, batch.size(),
              static_cast<long long>(latency.count()), max_in_flight);
  std::printf("  one Send():      %.2f s, %ld sent\n", elapsed_s, static_cast<long>(sent));
  std::printf("  throughput:      %.0f messages/s\n", batch.size() / elapsed_s);
  return static_cast<std::size_t>(sent) == batch.size();
}

}  // namespace

int main(int argc, char** argv) {
  const int messages = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const int latency_ms = argc > 2 ? std::max(0, std::atoi(argv[2])) : 50;
  std::vector<std::size_t> in_flight;
  for (int i = 3; i < argc; ++i) {
    in_flight.push_back(static_cast<std::size_t>(std::max(1, std::atoi(argv[i]))));
  }
  if (in_flight.empty()) in_flight = {EmailSettings{}.max_in_flight, 200};

  const auto batch = Batch(messages);
  const chopar::core::SystemClock clock;
  bool ok = true;
  for (const std::size_t n : in_flight) {
    ok = Run(batch, std::chrono::milliseconds(latency_ms), n, clock) && ok;
  }
  // The HTTP client keeps at most 64 connections a host: the APIs at 64.
  const std::size_t api_in_flight = EmailSettings{}.max_in_flight;
  const auto latency = std::chrono::milliseconds(latency_ms);
  ok = RunApi(
           "ses", batch, latency, api_in_flight, clock,
           [](const std::string& url) {
             return chopar::channels::email::SesApi(
                 EmailSettings{}, {"eu-central-1", "AKIDEXAMPLE", "bench-secret", "", url});
           },
           R"({"MessageId": "0107-bench"})") &&
       ok;
  ok = RunApi(
           "mailgun", batch, latency, api_in_flight, clock,
           [](const std::string& url) {
             return chopar::channels::email::MailgunApi({"mg.example.uz", "key-bench", url});
           },
           R"({"id": "<bench@mg.example.uz>", "message": "Queued. Thank you."})") &&
       ok;
  ok = RunApi(
           "postmark", batch, latency, api_in_flight, clock,
           [](const std::string& url) {
             return chopar::channels::email::PostmarkApi(EmailSettings{},
                                                         {"bench-token", "outbound", url});
           },
           R"({"ErrorCode": 0, "Message": "OK", "MessageID": "bench"})") &&
       ok;
  ok = RunApi(
           "sendgrid", batch, latency, api_in_flight, clock,
           [](const std::string& url) {
             return chopar::channels::email::SendGridApi(EmailSettings{}, {"SG.bench", url});
           },
           "", 202) &&
       ok;
  return ok ? 0 : 1;
}
