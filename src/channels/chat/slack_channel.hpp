#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"
#include "channels/chat/slack_app.hpp"
#include "channels/chat/webhook_channel.hpp"
#include "channels/chat/webhook_rests.hpp"

namespace chopar::channels::chat {

// How the channel reaches installed workspaces: Slack's Web API and each
// workspace's bot token (SlackApp::BotToken; it may throw as that does).
struct SlackWorkspaceAccess {
  std::string api_url;
  std::function<std::optional<std::string>(std::string_view team_id)> bot_token;
};

// The `slack` channel: a user's address is an incoming webhook URL (posted
// as ChatWebhookChannel posts kSlackFormat) or a conversation of a
// workspace that installed chopar's app, "T…/U…" (posted with
// chat.postMessage and the workspace's bot token). Slack's rate limits are
// per workspace and method: after a 429 the workspace takes no more posts
// for its Retry-After (a second without one), and a post that would wait
// longer than max_wait is given back to be retried then. A failure before
// the request was written is retried; after it, the outcome is unknown and
// final (OutcomeUnknown): chat.postMessage has no idempotency key.
// Thread-safe.
class SlackChannel final : public Channel {
 public:
  // `workspaces` nullopt: the app is not configured, and workspace
  // addresses fail.
  SlackChannel(ChatWebhookSettings settings, std::optional<SlackWorkspaceAccess> workspaces,
               net::HttpClient& http);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "slack"; }

 private:
  // The messages to workspace conversations, at `indices` of the batch.
  void SendToWorkspaces(std::span<const Message> messages, std::span<const std::size_t> indices,
                        std::vector<Outcome>& outcomes);

  ChatWebhookSettings settings_;
  ChatWebhookChannel webhooks_;
  std::optional<SlackWorkspaceAccess> workspaces_;
  net::HttpClient& http_;
  WebhookRests workspace_rests_;  // by team id
};

}  // namespace chopar::channels::chat
