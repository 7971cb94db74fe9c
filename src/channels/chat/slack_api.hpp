#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::chat {

// Slack's Web API for a workspace that installed chopar's app (the bot-token
// form of the `slack` channel, beside incoming webhooks): the pieces that do
// not depend on where the token is kept. Pure; thread-safe.

// A user's address in an installed workspace: "<team id>/<conversation id>"
// ("T0123ABCD/U0456EFGH" for a direct message, "T0123ABCD/C0789IJKL" for a
// channel). nullopt for anything else.
struct SlackConversation {
  std::string team_id;          // "T…" (or "E…" for an Enterprise Grid org)
  std::string conversation_id;  // "U…", "W…" (a user), "C…", "G…" (a channel), "D…" (a DM)
};
std::optional<SlackConversation> ParseSlackConversation(std::string_view address);

// The JSON body of chat.postMessage to `conversation_id`: Slack's Block Kit
// blocks and plain `text` as the incoming-webhook form sends them, with
// `unfurl_links` off (a notification's link must not grow a preview).
std::string SlackPostMessageBody(std::string_view conversation_id, const Message& message,
                                 std::string_view public_url);

// What an answer of chat.postMessage means. Slack answers 200 with
// {"ok": false, "error": …} for most failures:
//   ok: true                                   sent, the message's `ts` as its id
//   channel_not_found, user_not_found, is_archived, account_inactive,
//   token_revoked, user_disabled, not_in_channel, cannot_dm_bot,
//   team_not_found                             address gone
//   invalid_auth, team_access_not_granted, not_authed
//                                              permanent (chopar's token is wrong)
//   ratelimited (HTTP 429), fatal_error, internal_error, service_unavailable,
//   request_timeout, 5xx                       retried, after Retry-After
//   any other error                            permanent
Outcome SlackPostMessageOutcome(const net::HttpResponse& response,
                                std::chrono::system_clock::time_point now);

// users.lookupByEmail's answer: the Slack user id, or nullopt with `error`
// set to Slack's error ("users_not_found" when no member has that email).
struct SlackLookup {
  std::optional<std::string> user_id;
  std::string error;
};
SlackLookup ParseSlackLookupByEmail(const net::HttpResponse& response);

// oauth.v2.access's answer after the install: the workspace and its bot
// token, or nullopt with `error` set.
struct SlackInstall {
  std::string team_id;
  std::string team_name;
  std::string bot_token;  // "xoxb-…": a secret
  std::string bot_user_id;
};
struct SlackInstallResult {
  std::optional<SlackInstall> install;
  std::string error;
};
SlackInstallResult ParseSlackOAuthAccess(const net::HttpResponse& response);

}  // namespace chopar::channels::chat
