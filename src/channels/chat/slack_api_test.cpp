// Slack's Web API pieces of the bot-token form: addresses, the
// chat.postMessage body, what its ok:false errors and tiered 429s mean, and
// the answers of users.lookupByEmail and oauth.v2.access.
#include "channels/chat/slack_api.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace chopar::channels::chat {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

net::HttpResponse Answer(long status, const json& body,
                         std::map<std::string, std::string> headers = {}) {
  net::HttpResponse r;
  r.status = status;
  r.body = body.dump();
  r.headers = std::move(headers);
  return r;
}

TEST(SlackApiTest, AnAddressIsATeamAndAConversation) {
  const auto dm = ParseSlackConversation("T0123ABCD/U0456EFGH");
  ASSERT_TRUE(dm);
  EXPECT_EQ(dm->team_id, "T0123ABCD");
  EXPECT_EQ(dm->conversation_id, "U0456EFGH");
  EXPECT_TRUE(ParseSlackConversation("E0123ABCD/C0789IJKL"));
  for (const char* refused :
       {"U0456EFGH", "T0123ABCD/", "/U0456EFGH", "T0123ABCD/u0456efgh", "X0123ABCD/U0456EFGH",
        "T0123ABCD/U0456EFGH/x", "https://hooks.slack.com/services/T0/B0/x"}) {
    EXPECT_FALSE(ParseSlackConversation(refused)) << refused;
  }
}

TEST(SlackApiTest, PostMessageCarriesTheBlocksToTheConversationWithoutUnfurls) {
  Message m;
  m.title = "Muddat yaqin <!channel>";
  m.body = "Hisobot ertaga";
  m.link = "/tasks/1";
  const json body = json::parse(SlackPostMessageBody("U0456EFGH", m, "https://app.example"));
  EXPECT_EQ(body["channel"], "U0456EFGH");
  EXPECT_EQ(body["unfurl_links"], false);
  EXPECT_TRUE(body["blocks"].is_array());
  EXPECT_EQ(body["text"].get<std::string>().find("<!channel>"), std::string::npos)
      << "escaped: never a mention";
}

TEST(SlackApiTest, OkFalseErrorsAndTieredRateLimitsMapToOutcomes) {
  const auto now = std::chrono::system_clock::now();
  const Outcome sent =
      SlackPostMessageOutcome(Answer(200, {{"ok", true}, {"ts", "1733490000.000100"}}), now);
  EXPECT_EQ(sent.kind, OutcomeKind::kSent);
  EXPECT_EQ(sent.provider_message_id, "1733490000.000100");
  for (const char* gone : {"channel_not_found", "account_inactive", "token_revoked", "is_archived",
                           "user_not_found"}) {
    EXPECT_EQ(SlackPostMessageOutcome(Answer(200, {{"ok", false}, {"error", gone}}), now).kind,
              OutcomeKind::kAddressGone)
        << gone;
  }
  const Outcome limited = SlackPostMessageOutcome(
      Answer(429, {{"ok", false}, {"error", "ratelimited"}}, {{"retry-after", "30"}}), now);
  EXPECT_EQ(limited.kind, OutcomeKind::kRetry);
  EXPECT_EQ(limited.retry_after, 30s);
  EXPECT_EQ(
      SlackPostMessageOutcome(Answer(200, {{"ok", false}, {"error", "internal_error"}}), now).kind,
      OutcomeKind::kRetry);
  EXPECT_EQ(SlackPostMessageOutcome(Answer(503, json::object()), now).kind, OutcomeKind::kRetry);
  const Outcome auth =
      SlackPostMessageOutcome(Answer(200, {{"ok", false}, {"error", "invalid_auth"}}), now);
  EXPECT_EQ(auth.kind, OutcomeKind::kPermanent);
  EXPECT_EQ(
      SlackPostMessageOutcome(Answer(200, {{"ok", false}, {"error", "msg_too_long"}}), now).kind,
      OutcomeKind::kPermanent);
}

TEST(SlackApiTest, ReadsLookupByEmailAndTheOAuthInstall) {
  const auto found = ParseSlackLookupByEmail(
      Answer(200, {{"ok", true}, {"user", {{"id", "U0456EFGH"}, {"name", "gulnora"}}}}));
  EXPECT_EQ(found.user_id, "U0456EFGH");
  const auto missing =
      ParseSlackLookupByEmail(Answer(200, {{"ok", false}, {"error", "users_not_found"}}));
  EXPECT_FALSE(missing.user_id);
  EXPECT_EQ(missing.error, "users_not_found");

  const auto installed = ParseSlackOAuthAccess(
      Answer(200, {{"ok", true},
                   {"access_token", "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"},
                   {"token_type", "bot"},
                   {"bot_user_id", "U0KRQLJ9H"},
                   {"team", {{"id", "T9TK3CUKW"}, {"name", "Acme"}}}}));
  ASSERT_TRUE(installed.install) << installed.error;
  EXPECT_EQ(installed.install->team_id, "T9TK3CUKW");
  EXPECT_EQ(installed.install->team_name, "Acme");
  EXPECT_TRUE(installed.install->bot_token.starts_with("xoxb-"));
  EXPECT_EQ(ParseSlackOAuthAccess(Answer(200, {{"ok", false}, {"error", "invalid_code"}})).error,
            "invalid_code");
  EXPECT_FALSE(
      ParseSlackOAuthAccess(Answer(200, {{"ok", true}, {"access_token", "xoxp-user"}})).install)
      << "a user token is not a bot install";
}

}  // namespace
}  // namespace chopar::channels::chat
