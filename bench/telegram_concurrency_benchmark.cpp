// Telegram concurrency and pacing: the real TelegramChannel against a local
// Bot API that answers sendMessage after a fixed latency.
//
//   (a) N messages to N chats at max_per_second (default 2,000 at 1,000/s,
//       50 ms latency: one at a time that is 100 s; the rate alone allows
//       no less than about 2 s);
//   (b) M messages to M chats at the default rate (30/s): when the last one
//       reaches the fake (floor (M - 1) / 30 s after the call);
//   (c) two messages to one chat at the defaults: the gap between their
//       arrivals (floor 1 s).
//
//   telegram_concurrency_benchmark [messages=2000] [latency_ms=50] [max_per_second=1000]
//                                  [paced_messages=90]
//
// Exits non-zero when a message is not sent; figures never fail the run.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "channels/telegram/channel.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"
#include "sample_message.hpp"
#include "testing/fake_telegram.hpp"

namespace {

using chopar::channels::Message;
using chopar::channels::Outcome;
using chopar::channels::OutcomeKind;
using chopar::channels::telegram::TelegramChannel;
using chopar::channels::telegram::TelegramSettings;
using chopar::testing::FakeTelegram;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kFirstChat = 900000001;

double SecondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A Bot API on 127.0.0.1 answering every sendMessage with ok after
// `latency` (its message_id is the chat id).
std::unique_ptr<FakeTelegram> FakeBotApi(std::chrono::milliseconds latency) {
  return std::make_unique<FakeTelegram>(
      [](const nlohmann::json& body) {
        return chopar::testing::BotOk(body.is_object() ? body.value("chat_id", std::int64_t{0})
                                                       : 0);
      },
      latency);
}

// Settings for `messages` in one Send() at `max_per_second` (default: the
// channel's default rate). max_wait grows with the batch so that every turn
// is held inside the call: late ones would come back as retries, unmeasured.
TelegramSettings SettingsFor(const FakeTelegram& fake, int messages,
                             std::optional<double> max_per_second = std::nullopt) {
  TelegramSettings settings;
  if (max_per_second) settings.max_per_second = *max_per_second;
  settings.max_wait =
      std::chrono::seconds(30 + static_cast<int>(messages / settings.max_per_second));
  settings.bot_token = "123456:BENCH-token";
  settings.api_base = fake.url();
  settings.public_url = "https://chopar.example.uz/";
  settings.timeout = std::chrono::seconds(30);
  return settings;
}

Message ToChat(std::int64_t chat_id, std::int64_t delivery_id) {
  Message m = chopar::bench::SampleMessage(delivery_id, chopar::core::ChannelKind::kTelegram);
  m.telegram_chat_id = chat_id;
  return m;
}

std::vector<Message> ToChats(int count) {
  std::vector<Message> messages;
  messages.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) messages.push_back(ToChat(kFirstChat + i, i + 1));
  return messages;
}

// Prints why any message was not sent; true when all were.
bool AllSent(const char* scenario, const std::vector<Outcome>& outcomes) {
  int failed = 0;
  for (const auto& outcome : outcomes) {
    if (outcome.kind == OutcomeKind::kSent) continue;
    if (++failed <= 3) std::printf("  %s: not sent: %s\n", scenario, outcome.detail.c_str());
  }
  if (failed > 0) std::printf("  %s: %d of %zu not sent\n", scenario, failed, outcomes.size());
  return failed == 0;
}

bool RunConcurrent(int messages, int latency_ms, double max_per_second) {
  const auto fake = FakeBotApi(std::chrono::milliseconds(latency_ms));
  const TelegramSettings settings = SettingsFor(*fake, messages, max_per_second);
  chopar::net::HttpClient http;
  const chopar::core::SystemClock clock;
  TelegramChannel channel(settings, http, clock);
  const auto batch = ToChats(messages);

  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const double elapsed = SecondsBetween(start, Clock::now());

  std::printf("(a) %d messages to %d chats, max_per_second %.0f, Bot API latency %d ms\n", messages,
              messages, max_per_second, latency_ms);
  std::printf("  one Send():      %.2f s (one at a time: %.0f s; the rate alone: >= %.2f s)\n",
              elapsed, messages * latency_ms / 1000.0, (messages - 1) / max_per_second);
  std::printf("  in flight:       %d requests at most\n", fake->max_in_flight());
  std::printf("  throughput:      %.0f messages/s\n", messages / elapsed);
  return AllSent("(a)", outcomes);
}

bool RunDefaultRate(int messages) {
  const auto fake = FakeBotApi(std::chrono::milliseconds(0));
  const TelegramSettings settings = SettingsFor(*fake, messages);
  chopar::net::HttpClient http;
  const chopar::core::SystemClock clock;
  TelegramChannel channel(settings, http, clock);
  const auto batch = ToChats(messages);

  const auto start = Clock::now();
  const auto outcomes = channel.Send(batch);
  const auto arrivals = fake->arrivals();

  std::printf("(b) %d messages to %d chats at the default %.0f/s\n", messages, messages,
              settings.max_per_second);
  if (!arrivals.empty()) {
    std::printf("  last arrival:    %.3f s after the call (floor %d/%.0f = %.3f s)\n",
                SecondsBetween(start, arrivals.back().at), messages - 1, settings.max_per_second,
                (messages - 1) / settings.max_per_second);
    std::printf("  first to last:   %.3f s\n",
                SecondsBetween(arrivals.front().at, arrivals.back().at));
  }
  return AllSent("(b)", outcomes) && arrivals.size() == static_cast<std::size_t>(messages);
}

bool RunSameChat() {
  const auto fake = FakeBotApi(std::chrono::milliseconds(0));
  const TelegramSettings settings = SettingsFor(*fake, 2);
  chopar::net::HttpClient http;
  const chopar::core::SystemClock clock;
  TelegramChannel channel(settings, http, clock);
  const std::vector<Message> batch = {ToChat(kFirstChat, 1), ToChat(kFirstChat, 2)};

  const auto outcomes = channel.Send(batch);
  const auto arrivals = fake->arrivals();

  std::printf("(c) two messages to one chat, per_chat_interval %lld ms\n",
              static_cast<long long>(settings.per_chat_interval.count()));
  if (arrivals.size() == 2) {
    std::printf("  apart:           %.3f s at the Bot API (floor 1 s)\n",
                SecondsBetween(arrivals[0].at, arrivals[1].at));
  }
  return AllSent("(c)", outcomes) && arrivals.size() == 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int messages = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const int latency_ms = argc > 2 ? std::max(0, std::atoi(argv[2])) : 50;
  const double max_per_second = argc > 3 ? std::atof(argv[3]) : 1000;
  const int paced_messages = argc > 4 ? std::max(1, std::atoi(argv[4])) : 90;
  if (max_per_second <= 0) {
    std::fprintf(stderr, "max_per_second must be positive\n");
    return 2;
  }

  // Every scenario runs even when an earlier one failed, so one run shows all.
  const bool concurrent = RunConcurrent(messages, latency_ms, max_per_second);
  const bool paced = RunDefaultRate(paced_messages);
  const bool same_chat = RunSameChat();
  return concurrent && paced && same_chat ? 0 : 1;
}
