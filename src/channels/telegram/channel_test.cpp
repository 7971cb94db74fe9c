#include "channels/telegram/channel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/clock.hpp"
#include "testing/fake_http_server.hpp"
#include "testing/silent_server.hpp"
#include "testing/fake_telegram.hpp"

namespace chopar::channels::telegram {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using std::chrono::steady_clock;
using testing::BotError;
using testing::BotOk;
using testing::FakeHttpServer;
using testing::FakeTelegram;
using testing::SilentServer;

constexpr const char* kToken = "123456:TEST-token_abc";
// What an HTTP-date Retry-After would count from; the fake sends none.
const core::SimulatedClock kClock{std::chrono::sys_days{std::chrono::year{2026} / 10 / 28}};


TelegramSettings SettingsFor(const FakeTelegram& fake) {
  TelegramSettings settings;
  settings.bot_token = kToken;
  settings.api_base = fake.url();
  settings.public_url = "https://chopar.example.uz/";
  settings.timeout = 5s;
  return settings;
}

Message TelegramMessage(std::int64_t chat_id, std::int64_t delivery_id = 1) {
  Message m;
  m.delivery_id = delivery_id;
  m.notification_id = 100 + delivery_id;
  m.user_id = 1;
  m.channel = core::ChannelKind::kTelegram;
  m.type = "task.due";
  m.title = "Muddat yaqin <3";
  m.body = "Non olish — 18:00 & sut";
  m.link = "/tasks/1";
  m.locale = "uz";
  m.telegram_chat_id = chat_id;
  return m;
}

std::vector<Message> ToChats(int count, std::int64_t first_chat = 900000001) {
  std::vector<Message> messages;
  for (int i = 0; i < count; ++i) messages.push_back(TelegramMessage(first_chat + i, i + 1));
  return messages;
}

Outcome SendOne(TelegramChannel& channel, const Message& message) {
  return std::move(channel.Send(std::span<const Message>(&message, 1)).front());
}

TEST(TelegramChannelTest, SuccessIsSentWithTheMessageIdAndTheRequestTelegramExpects) {
  FakeTelegram fake([](const json&) { return BotOk(4242); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);

  const Outcome outcome = SendOne(channel, TelegramMessage(900000001));

  EXPECT_EQ(outcome.kind, OutcomeKind::kSent) << outcome.detail;
  EXPECT_EQ(outcome.provider_message_id, "4242");
  const auto arrivals = fake.arrivals();
  ASSERT_EQ(arrivals.size(), 1u);
  EXPECT_EQ(arrivals[0].target, std::string("/bot") + kToken + "/sendMessage");
  const json& body = arrivals[0].body;
  EXPECT_EQ(body["chat_id"], 900000001);
  EXPECT_EQ(body["parse_mode"], "HTML");
  EXPECT_EQ(body["disable_web_page_preview"], true);
  EXPECT_EQ(body["text"],
            "<b>Muddat yaqin &lt;3</b>\nNon olish — 18:00 &amp; sut\n"
            "<a href=\"https://chopar.example.uz/tasks/1\">Ochish</a>");
  EXPECT_EQ(arrivals[0].delivery_id, 1) << "the request names its delivery (X-Chopar-Delivery-Id)";
}

TEST(TelegramChannelTest, BlockedBotIsAddressGone) {
  FakeTelegram fake(
      [](const json&) { return BotError(403, "Forbidden: bot was blocked by the user"); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  const Outcome outcome = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(outcome.kind, OutcomeKind::kAddressGone);
  EXPECT_NE(outcome.detail.find("bot was blocked by the user"), std::string::npos)
      << outcome.detail;
}

TEST(TelegramChannelTest, DeactivatedUserIsAddressGone) {
  FakeTelegram fake([](const json&) { return BotError(403, "Forbidden: user is deactivated"); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  EXPECT_EQ(SendOne(channel, TelegramMessage(900000001)).kind, OutcomeKind::kAddressGone);
}

TEST(TelegramChannelTest, ChatNotFoundIsAddressGone) {
  FakeTelegram fake([](const json&) { return BotError(400, "Bad Request: chat not found"); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  const Outcome outcome = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(outcome.kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcome.detail, "telegram 400: Bad Request: chat not found");
}

TEST(TelegramChannelTest, OtherBadRequestIsPermanentWithTelegramsReason) {
  FakeTelegram fake([](const json&) {
    return BotError(400, "Bad Request: can't parse entities: Unsupported start tag \"x\"");
  });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  const Outcome outcome = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(outcome.kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcome.detail.find("can't parse entities"), std::string::npos) << outcome.detail;
}

TEST(TelegramChannelTest, TooManyRequestsRetriesAfterTelegramsRetryAfter) {
  FakeTelegram fake(
      [](const json&) { return BotError(429, "Too Many Requests: retry after 7", 7); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  const Outcome outcome = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(outcome.kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcome.retry_after, 7s);
}

TEST(TelegramChannelTest, TooManyRequestsHoldsBackTheNextMessageToThatChat) {
  FakeTelegram fake(
      [](const json&) { return BotError(429, "Too Many Requests: retry after 40", 40); });
  net::HttpClient http;
  TelegramSettings settings = SettingsFor(fake);
  settings.max_wait = 5s;
  TelegramChannel channel(settings, http, kClock);
  (void)SendOne(channel, TelegramMessage(900000001));
  // The chat is deferred 40 s, beyond max_wait: refused here, nothing sent.
  const Outcome next = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(next.kind, OutcomeKind::kRetry);
  ASSERT_TRUE(next.retry_after);
  EXPECT_GE(*next.retry_after, 35s);
  EXPECT_EQ(fake.arrivals().size(), 1u);
}

TEST(TelegramChannelTest, ServerErrorsRetry) {
  FakeTelegram fake([](const json& body) -> FakeHttpServer::Response {
    if (body["chat_id"] == 1) return BotError(500, "Internal Server Error");
    return {502, "<html>Bad Gateway</html>", {}, "text/html"};
  });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  const auto outcomes =
      channel.Send(std::vector<Message>{TelegramMessage(1, 1), TelegramMessage(2, 2)});
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[0].detail, "telegram 500: Internal Server Error");
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[1].detail, "telegram 502: HTTP 502 without a Bot API answer");
}

// Telegram took the message and answered after chopar's timeout: a retry
// would deliver it twice, so the outcome is final.
TEST(TelegramChannelTest, AnswerAfterTheTimeoutIsOutcomeUnknownAndNotSentAgain) {
  FakeTelegram fake([](const json&) {
    auto answer = BotOk(77);
    answer.delay = 2s;
    return answer;
  });
  net::HttpClient http;
  TelegramSettings settings = SettingsFor(fake);
  settings.timeout = 300ms;
  TelegramChannel channel(settings, http, kClock);
  const Outcome outcome = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(outcome.kind, OutcomeKind::kUnknown) << outcome.detail;
  EXPECT_TRUE(outcome.detail.starts_with("outcome unknown: telegram: ")) << outcome.detail;
  EXPECT_EQ(fake.server().request_count(), 1u);
}

TEST(TelegramChannelTest, NoAnswerFromAServerThatReadNothingIsOutcomeUnknownToo) {
  // The request was written to the socket: chopar cannot know it was not read.
  SilentServer silent;
  net::HttpClient http;
  TelegramSettings settings;
  settings.bot_token = kToken;
  settings.api_base = silent.url();
  settings.timeout = 200ms;
  TelegramChannel channel(settings, http, kClock);
  EXPECT_EQ(SendOne(channel, TelegramMessage(900000001)).kind, OutcomeKind::kUnknown);
}

TEST(TelegramChannelTest, RefusedBotTokenRetriesRatherThanFailingTheMessage) {
  FakeTelegram fake([](const json&) { return BotError(401, "Unauthorized"); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  EXPECT_EQ(SendOne(channel, TelegramMessage(900000001)).kind, OutcomeKind::kRetry);
}

TEST(TelegramChannelTest, UnreachableApiRetries) {
  net::HttpClient http;
  TelegramSettings settings;
  settings.bot_token = kToken;
  settings.api_base = "http://127.0.0.1:1";  // nothing listens on port 1: nothing was sent
  settings.timeout = 2s;
  TelegramChannel channel(settings, http, kClock);
  const Outcome refused = SendOne(channel, TelegramMessage(900000001));
  EXPECT_EQ(refused.kind, OutcomeKind::kRetry) << refused.detail;

  // The retry, once the API is reachable, is sent.
  FakeTelegram fake([](const json&) { return BotOk(78); });
  TelegramChannel reachable(SettingsFor(fake), http, kClock);
  EXPECT_EQ(SendOne(reachable, TelegramMessage(900000001)).kind, OutcomeKind::kSent);
  EXPECT_EQ(fake.server().request_count(), 1u);
}

TEST(TelegramChannelTest, MessageWithoutChatIsPermanentAndOthersStillGo) {
  FakeTelegram fake([](const json&) { return BotOk(9); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  std::vector<Message> messages = {TelegramMessage(1, 1), TelegramMessage(2, 2)};
  messages[0].telegram_chat_id.reset();
  const auto outcomes = channel.Send(messages);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kSent);
  EXPECT_EQ(fake.arrivals().size(), 1u);
}

TEST(TelegramChannelTest, LongBodyIsShortenedToFitTelegramsLimit) {
  Message m = TelegramMessage(1);
  m.body.clear();
  for (int i = 0; i < 3000; ++i) m.body += "ʻ😀";  // 1 + 2 UTF-16 units each
  const std::string text = TelegramMessageText(m, "https://chopar.example.uz");
  std::size_t units = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;
  }
  EXPECT_LE(units, 4096u);
  EXPECT_NE(text.find("…"), std::string::npos);
  EXPECT_NE(text.find("Ochish</a>"), std::string::npos) << "the link survives";
}

// Issue 3, acceptance 4: requests run concurrently (one at a time would take
// 2,000 × 50 ms = 100 s).
TEST(TelegramChannelTest, TwoThousandChatsAtAThousandPerSecondRunConcurrently) {
  FakeTelegram fake([](const json& body) { return BotOk(body["chat_id"].get<std::int64_t>()); },
                    50ms);
  net::HttpClient http;
  TelegramSettings settings = SettingsFor(fake);
  settings.max_per_second = 1000;
  TelegramChannel channel(settings, http, kClock);
  const auto messages = ToChats(2000);

  const auto start = steady_clock::now();
  const auto outcomes = channel.Send(messages);
  const auto elapsed = steady_clock::now() - start;

  ASSERT_EQ(outcomes.size(), 2000u);
  EXPECT_TRUE(std::all_of(outcomes.begin(), outcomes.end(),
                          [](const Outcome& o) { return o.kind == OutcomeKind::kSent; }));
  EXPECT_EQ(outcomes[1999].provider_message_id, std::to_string(900000001 + 1999));
  EXPECT_EQ(fake.arrivals().size(), 2000u);
  EXPECT_GT(fake.max_in_flight(), 10) << "requests overlapped at the provider";
  // 2,000 turns at 1,000 per second: no less than about 2 s.
  EXPECT_GE(elapsed, 1999ms);
  EXPECT_LT(elapsed, 5s);
  std::printf(
      "[ measured ] 2000 messages, 1000/s, 50 ms provider: %.2f s, %d requests in flight at most\n",
      std::chrono::duration<double>(elapsed).count(), fake.max_in_flight());
}

TEST(TelegramChannelTest, DefaultRateSpreadsNinetyMessagesOverThreeSeconds) {
  FakeTelegram fake([](const json&) { return BotOk(1); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);  // 30 per second
  const auto start = steady_clock::now();
  const auto outcomes = channel.Send(ToChats(90));

  ASSERT_TRUE(std::all_of(outcomes.begin(), outcomes.end(),
                          [](const Outcome& o) { return o.kind == OutcomeKind::kSent; }));
  auto arrivals = fake.arrivals();
  ASSERT_EQ(arrivals.size(), 90u);
  std::sort(arrivals.begin(), arrivals.end(),
            [](const auto& a, const auto& b) { return a.at < b.at; });
  // The 90th turn is 89/30 s after the first, which is not before `start`.
  EXPECT_GE(arrivals.back().at - start, 2966ms);
  std::printf(
      "[ measured ] 90 messages at 30/s: last arrived %.3f s after the call, first-to-last %.3f "
      "s\n",
      std::chrono::duration<double>(arrivals.back().at - start).count(),
      std::chrono::duration<double>(arrivals.back().at - arrivals.front().at).count());
}

TEST(TelegramChannelTest, TwoMessagesToOneChatAreASecondApartAndOthersDoNotWait) {
  FakeTelegram fake([](const json&) { return BotOk(1); });
  net::HttpClient http;
  TelegramChannel channel(SettingsFor(fake), http, kClock);
  // Chat 1 twice, then three other chats: those go in the second chat 1 waits.
  std::vector<Message> messages = {TelegramMessage(1, 1), TelegramMessage(1, 2),
                                   TelegramMessage(2, 3), TelegramMessage(3, 4),
                                   TelegramMessage(4, 5)};
  const auto outcomes = channel.Send(messages);
  ASSERT_TRUE(std::all_of(outcomes.begin(), outcomes.end(),
                          [](const Outcome& o) { return o.kind == OutcomeKind::kSent; }));

  std::vector<steady_clock::time_point> chat1;
  steady_clock::time_point others_last{};
  for (const auto& arrival : fake.arrivals()) {
    if (arrival.body["chat_id"] == 1) {
      chat1.push_back(arrival.at);
    } else {
      others_last = std::max(others_last, arrival.at);
    }
  }
  ASSERT_EQ(chat1.size(), 2u);
  std::sort(chat1.begin(), chat1.end());
  EXPECT_GE(chat1[1] - chat1[0], 1s);
  EXPECT_LT(others_last, chat1[1]) << "the other chats did not wait for chat 1";
  std::printf("[ measured ] same chat: %.3f s apart\n",
              std::chrono::duration<double>(chat1[1] - chat1[0]).count());
}

TEST(TelegramChannelTest, MessageWhoseTurnIsBeyondMaxWaitComesBackAsRetry) {
  FakeTelegram fake([](const json&) { return BotOk(1); });
  net::HttpClient http;
  TelegramSettings settings = SettingsFor(fake);
  settings.max_per_second = 1000;
  settings.max_wait = 2s;
  TelegramChannel channel(settings, http, kClock);
  // Four to one chat: turns just after 0, 1, 2 and 3 s; the last two are beyond 2 s.
  const auto outcomes = channel.Send(std::vector<Message>{
      TelegramMessage(1, 1), TelegramMessage(1, 2), TelegramMessage(1, 3), TelegramMessage(1, 4)});
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kRetry);
  ASSERT_TRUE(outcomes[2].retry_after);
  EXPECT_GE(*outcomes[2].retry_after, 2s);
  EXPECT_EQ(fake.arrivals().size(), 2u);
}

TEST(TelegramChannelTest, ParallelSendersShareOneBotWidePace) {
  FakeTelegram fake([](const json&) { return BotOk(1); });
  net::HttpClient http;
  TelegramSettings settings = SettingsFor(fake);
  settings.max_per_second = 20;
  TelegramChannel channel(settings, http, kClock);
  const auto start = steady_clock::now();
  std::thread a([&] { (void)channel.Send(ToChats(20, 1000)); });
  std::thread b([&] { (void)channel.Send(ToChats(20, 2000)); });
  a.join();
  b.join();
  const auto arrivals = fake.arrivals();
  ASSERT_EQ(arrivals.size(), 40u);
  steady_clock::time_point last{};
  for (const auto& arrival : arrivals) last = std::max(last, arrival.at);
  // 40 turns at 20 per second across both threads: the last is 39/20 s out.
  EXPECT_GE(last - start, 1950ms);
}

}  // namespace
}  // namespace chopar::channels::telegram
