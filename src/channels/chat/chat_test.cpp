// The chat webhook channels (Discord, Microsoft Teams) against a fake of
// each service on 127.0.0.1 that answers as the service does: the bodies
// posted, what each answer means, the webhook's rests after a rate limit,
// and the address policy of the URLs.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "channels/chat/discord.hpp"
#include "channels/chat/msteams.hpp"
#include "channels/chat/slack.hpp"
#include "channels/chat/webhook_channel.hpp"
#include "channels/chat/webhook_url.hpp"
#include "channels/render.hpp"
#include "testing/child_process.hpp"
#include "testing/fake_http_server.hpp"

namespace chopar::channels::chat {
namespace {

using nlohmann::json;
using testing::FakeHttpServer;
using namespace std::chrono_literals;

constexpr std::string_view kPublicUrl = "https://app.example";

FakeHttpServer::Response Answer(int status, std::string body,
                                std::map<std::string, std::string> headers = {}) {
  FakeHttpServer::Response r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

Message MessageTo(std::string webhook, std::int64_t delivery_id = 7) {
  Message m;
  m.delivery_id = delivery_id;
  m.title = "Muddat yaqin";
  m.body = "Hisobot ertaga soat 09:00 gacha";
  m.link = "/tasks/1";
  m.locale = "uz";
  m.address = std::move(webhook);
  return m;
}

// A chat service: answers by path, each test sets the answer of a webhook;
// any other path gets `fallback`.
class ChatChannelTest : public ::testing::Test {
 protected:
  ChatWebhookChannel Channel(const ChatFormat& format) {
    ChatWebhookSettings settings;
    settings.public_url = std::string(kPublicUrl);
    settings.allow_local_webhooks = true;
    settings.timeout = 5000ms;
    return ChatWebhookChannel(format, settings, http_);
  }
  void AnswerFor(const std::string& path, FakeHttpServer::Response response) {
    std::lock_guard lock(mutex_);
    answers_[path] = std::move(response);
  }
  std::string Webhook(const std::string& path) const { return server_.url() + path; }

  FakeHttpServer::Response Handle(const FakeHttpServer::Request& request) {
    std::lock_guard lock(mutex_);
    std::string path = request.target.substr(0, request.target.find('?'));
    if (const auto it = answers_.find(path); it != answers_.end()) return it->second;
    return fallback_;
  }

  std::mutex mutex_;
  std::map<std::string, FakeHttpServer::Response> answers_;
  FakeHttpServer::Response fallback_ = Answer(200, R"({"id": "1180000000000000001"})");
  FakeHttpServer server_{[this](const FakeHttpServer::Request& r) { return Handle(r); }};
  net::HttpClient http_;
};

TEST(WebhookUrlTest, TakesPublicHttpsUrlsOnly) {
  EXPECT_EQ(WebhookUrlProblem("https://discord.com/api/webhooks/1/abc", false), std::nullopt);
  EXPECT_EQ(WebhookUrlProblem("https://acme.webhook.office.com/webhookb2/x", false), std::nullopt);
  for (const char* refused :
       {"http://discord.com/api/webhooks/1/abc", "ftp://discord.com/x", "discord.com/x",
        "https://127.0.0.1/x", "https://localhost/x", "https://10.1.2.3/x",
        "https://169.254.169.254/latest", "https://[::1]/x", "https://192.168.0.5:8443/x",
        "https://discord.com/a b", "https://"}) {
    EXPECT_NE(WebhookUrlProblem(refused, false), std::nullopt) << refused;
  }
  EXPECT_EQ(WebhookUrlProblem("http://127.0.0.1:9/x", true), std::nullopt);
  EXPECT_NE(WebhookUrlProblem("ftp://127.0.0.1/x", true), std::nullopt);
}

TEST(ChatFormatTest, CutsByCodePointsNotBytes) {
  EXPECT_EQ(CutCodePoints("salom", 5), "salom");
  EXPECT_EQ(CutCodePoints("salom", 4), "sal…");
  EXPECT_EQ(CutCodePoints("привет", 6), "привет");  // 12 bytes, 6 characters
  EXPECT_EQ(CutCodePoints("привет", 3), "пр…");
}

TEST(DiscordTest, BodyIsOneEmbedWithMentionsOff) {
  const json body =
      json::parse(DiscordBody(MessageTo("https://discord.com/api/webhooks/1/a"), kPublicUrl));
  ASSERT_EQ(body["embeds"].size(), 1u);
  EXPECT_EQ(body["embeds"][0]["title"], "Muddat yaqin");
  EXPECT_EQ(body["embeds"][0]["description"], "Hisobot ertaga soat 09:00 gacha");
  EXPECT_EQ(body["embeds"][0]["url"], "https://app.example/tasks/1");
  EXPECT_EQ(body["allowed_mentions"], json({{"parse", json::array()}}))
      << "a notification's @everyone must not ping anybody";
  EXPECT_FALSE(body.contains("content"));

  Message long_title = MessageTo("x");
  long_title.title = std::string(300, 'a');
  EXPECT_EQ(json::parse(DiscordBody(long_title, kPublicUrl))["embeds"][0]["title"],
            std::string(255, 'a') + "…");
}

TEST(DiscordTest, WaitsForTheMessageSoTheAnswerNamesIt) {
  EXPECT_EQ(DiscordTarget("https://discord.com/api/webhooks/1/a"),
            "https://discord.com/api/webhooks/1/a?wait=true");
  EXPECT_EQ(DiscordTarget("https://discord.com/api/webhooks/1/a?thread_id=5"),
            "https://discord.com/api/webhooks/1/a?thread_id=5&wait=true");
}

TEST_F(ChatChannelTest, DiscordPostsAndKeepsTheMessageId) {
  auto channel = Channel(kDiscordFormat);
  const auto outcomes = channel.Send(std::vector{MessageTo(Webhook("/api/webhooks/1/live"), 41)});
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent) << outcomes[0].detail;
  EXPECT_EQ(outcomes[0].provider_message_id, "1180000000000000001");
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/api/webhooks/1/live?wait=true");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  EXPECT_EQ(requests[0].delivery_id, 41);
  EXPECT_EQ(json::parse(requests[0].body)["embeds"][0]["title"], "Muddat yaqin");
}

TEST_F(ChatChannelTest, DiscordAnswersMapToOutcomes) {
  AnswerFor("/gone", Answer(404, R"({"message": "Unknown Webhook", "code": 10015})"));
  AnswerFor("/token", Answer(401, R"({"message": "Invalid Webhook Token", "code": 50027})"));
  AnswerFor("/bad", Answer(400, R"({"message": "Cannot send an empty message", "code": 50006})"));
  AnswerFor("/down", Answer(502, "<html>Bad Gateway</html>"));
  AnswerFor(
      "/busy",
      Answer(429,
             R"({"message": "You are being rate limited.", "retry_after": 4.2, "global": false})",
             {{"Retry-After", "5"}}));
  auto channel = Channel(kDiscordFormat);
  const auto outcomes =
      channel.Send(std::vector{MessageTo(Webhook("/gone"), 1), MessageTo(Webhook("/token"), 2),
                               MessageTo(Webhook("/bad"), 3), MessageTo(Webhook("/down"), 4),
                               MessageTo(Webhook("/busy"), 5)});
  ASSERT_EQ(outcomes.size(), 5u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[0].detail, "discord 404: Unknown Webhook (code 10015)");
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[4].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[4].retry_after, 5s) << "retry_after 4.2 s, rounded up";
}

TEST_F(ChatChannelTest, AWebhookRestsWhileItsBucketIsEmpty) {
  // The bucket empties with this post for 30 s: the next post to the same
  // webhook is not made (given back to be retried after the rest), another
  // webhook's is.
  AnswerFor("/full", Answer(200, R"({"id": "9"})",
                            {{"X-RateLimit-Limit", "5"},
                             {"X-RateLimit-Remaining", "0"},
                             {"X-RateLimit-Reset-After", "30.000"}}));
  auto channel = Channel(kDiscordFormat);
  EXPECT_EQ(channel.Send(std::vector{MessageTo(Webhook("/full"))})[0].kind, OutcomeKind::kSent);
  const auto later =
      channel.Send(std::vector{MessageTo(Webhook("/full"), 8), MessageTo(Webhook("/other"), 9)});
  EXPECT_EQ(later[0].kind, OutcomeKind::kRetry);
  ASSERT_TRUE(later[0].retry_after.has_value());
  EXPECT_GE(*later[0].retry_after, 29s);
  EXPECT_LE(*later[0].retry_after, 30s);
  EXPECT_EQ(later[1].kind, OutcomeKind::kSent);
  EXPECT_EQ(server_.request_count(), 2u) << "the resting webhook got no second post";
}

TEST_F(ChatChannelTest, AFailureAfterThePostLeftIsAnUnknownOutcome) {
  FakeHttpServer::Response reset;
  reset.reset = true;
  AnswerFor("/cut", reset);
  auto channel = Channel(kDiscordFormat);
  const auto cut = channel.Send(std::vector{MessageTo(Webhook("/cut"))});
  EXPECT_EQ(cut[0].kind, OutcomeKind::kUnknown) << cut[0].detail;

  // Nothing listens: nothing left, so it is retried.
  const std::string closed =
      "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort()) + "/x";
  const auto refused = channel.Send(std::vector{MessageTo(closed)});
  EXPECT_EQ(refused[0].kind, OutcomeKind::kRetry) << refused[0].detail;
}

TEST_F(ChatChannelTest, LocalWebhooksAreRefusedUnlessAllowed) {
  ChatWebhookSettings settings;
  settings.public_url = std::string(kPublicUrl);
  ChatWebhookChannel strict(kDiscordFormat, settings, http_);
  const auto outcomes = strict.Send(std::vector{MessageTo(Webhook("/live"))});
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kPermanent);
  EXPECT_NE(outcomes[0].detail.find("https://"), std::string::npos) << outcomes[0].detail;
  EXPECT_EQ(server_.request_count(), 0u);
}

TEST(TeamsTest, BodyIsAnAdaptiveCardWithTheLinkAsAButton) {
  const json body = json::parse(TeamsBody(MessageTo("https://x.example/w"), kPublicUrl));
  EXPECT_EQ(body["type"], "message");
  ASSERT_EQ(body["attachments"].size(), 1u);
  const json& attachment = body["attachments"][0];
  EXPECT_EQ(attachment["contentType"], "application/vnd.microsoft.card.adaptive");
  const json& card = attachment["content"];
  EXPECT_EQ(card["type"], "AdaptiveCard");
  EXPECT_EQ(card["version"], "1.4");
  ASSERT_EQ(card["body"].size(), 2u);
  EXPECT_EQ(card["body"][0]["text"], "Muddat yaqin");
  EXPECT_EQ(card["body"][0]["weight"], "Bolder");
  EXPECT_EQ(card["body"][1]["text"], "Hisobot ertaga soat 09:00 gacha");
  ASSERT_EQ(card["actions"].size(), 1u);
  EXPECT_EQ(card["actions"][0]["type"], "Action.OpenUrl");
  EXPECT_EQ(card["actions"][0]["url"], "https://app.example/tasks/1");
  EXPECT_EQ(card["actions"][0]["title"], "Ochish") << "the link label in the user's locale";

  Message no_link = MessageTo("x");
  no_link.link.reset();
  EXPECT_FALSE(
      json::parse(TeamsBody(no_link, kPublicUrl))["attachments"][0]["content"].contains("actions"));
}

TEST_F(ChatChannelTest, TeamsAnswersMapToOutcomes) {
  AnswerFor("/ok", Answer(200, "1"));
  AnswerFor("/flow", Answer(202, ""));
  AnswerFor("/throttled-inside",
            Answer(200,
                   "Webhook message delivery failed with error: Microsoft Teams endpoint "
                   "returned HTTP error 429 with ContextId tcid=0"));
  AnswerFor("/removed", Answer(410, "Connector configuration not found"));
  AnswerFor("/busy", Answer(429, "", {{"Retry-After", "7"}}));
  AnswerFor("/big", Answer(413, "Payload too large"));
  auto channel = Channel(kTeamsFormat);
  const auto outcomes = channel.Send(
      std::vector{MessageTo(Webhook("/ok"), 1), MessageTo(Webhook("/flow"), 2),
                  MessageTo(Webhook("/throttled-inside"), 3), MessageTo(Webhook("/removed"), 4),
                  MessageTo(Webhook("/busy"), 5), MessageTo(Webhook("/big"), 6)});
  ASSERT_EQ(outcomes.size(), 6u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kRetry) << outcomes[2].detail;
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[3].detail, "msteams 410: Connector configuration not found");
  EXPECT_EQ(outcomes[4].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[4].retry_after, 7s);
  EXPECT_EQ(outcomes[5].kind, OutcomeKind::kPermanent);

  // The 429's Retry-After rests that webhook: 7 s is past the 2 s a post
  // may wait, so the next one is given back without a post.
  const std::size_t before = server_.request_count();
  const auto rested = channel.Send(std::vector{MessageTo(Webhook("/busy"), 7)});
  EXPECT_EQ(rested[0].kind, OutcomeKind::kRetry);
  EXPECT_EQ(server_.request_count(), before);
}

TEST(SlackTest, BodyIsBlocksWithThePlainTextBesideThem) {
  Message m = MessageTo("https://hooks.slack.com/services/T0/B0/x");
  m.body = "Hisobot <!channel> & 2 > 1";
  const json body = json::parse(SlackBody(m, kPublicUrl));
  EXPECT_EQ(body["text"], "Muddat yaqin\nHisobot &lt;!channel&gt; &amp; 2 &gt; 1")
      << "a notification's <!channel> stays text, never a mention";
  ASSERT_EQ(body["blocks"].size(), 3u);
  EXPECT_EQ(body["blocks"][0]["type"], "header");
  EXPECT_EQ(body["blocks"][0]["text"], json({{"type", "plain_text"}, {"text", "Muddat yaqin"}}));
  EXPECT_EQ(body["blocks"][1]["type"], "section");
  EXPECT_EQ(body["blocks"][1]["text"]["type"], "mrkdwn");
  EXPECT_EQ(body["blocks"][1]["text"]["text"], "Hisobot &lt;!channel&gt; &amp; 2 &gt; 1");
  const json& button = body["blocks"][2]["elements"][0];
  EXPECT_EQ(button["type"], "button");
  EXPECT_EQ(button["text"]["text"], "Ochish");
  EXPECT_EQ(button["url"], "https://app.example/tasks/1");

  Message long_title = MessageTo("x");
  long_title.title = std::string(200, 'a');
  EXPECT_EQ(json::parse(SlackBody(long_title, kPublicUrl))["blocks"][0]["text"]["text"],
            std::string(149, 'a') + "…")
      << "a header holds 150 characters";
}

TEST_F(ChatChannelTest, SlackAnswersMapToOutcomes) {
  const auto text = [](int status, std::string body,
                       std::map<std::string, std::string> headers = {}) {
    FakeHttpServer::Response r = Answer(status, std::move(body), std::move(headers));
    r.content_type = "text/plain";
    return r;
  };
  AnswerFor("/ok", text(200, "ok"));
  AnswerFor("/revoked", text(404, "no_service"));
  AnswerFor("/archived", text(410, "channel_is_archived"));
  AnswerFor("/token", text(403, "invalid_token"));
  AnswerFor("/general", text(403, "posting_to_general_channel_denied"));
  AnswerFor("/bad", text(400, "invalid_payload"));
  AnswerFor("/busy", text(429, "rate_limited", {{"Retry-After", "30"}}));
  auto channel = Channel(kSlackFormat);
  const auto outcomes =
      channel.Send(std::vector{MessageTo(Webhook("/ok"), 1), MessageTo(Webhook("/revoked"), 2),
                               MessageTo(Webhook("/archived"), 3), MessageTo(Webhook("/token"), 4),
                               MessageTo(Webhook("/general"), 5), MessageTo(Webhook("/bad"), 6),
                               MessageTo(Webhook("/busy"), 7)});
  ASSERT_EQ(outcomes.size(), 7u);
  EXPECT_EQ(outcomes[0].kind, OutcomeKind::kSent);
  EXPECT_EQ(outcomes[1].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[1].detail, "slack 404: no_service");
  EXPECT_EQ(outcomes[2].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::kAddressGone);
  EXPECT_EQ(outcomes[4].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[5].kind, OutcomeKind::kPermanent);
  EXPECT_EQ(outcomes[6].kind, OutcomeKind::kRetry);
  EXPECT_EQ(outcomes[6].retry_after, 30s);
  const auto requests = server_.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
}

}  // namespace
}  // namespace chopar::channels::chat
