#include "channels/chat/chat_channels.hpp"

#include <atomic>
#include <memory>
#include <stdexcept>

#include "channels/chat/discord.hpp"
#include "channels/chat/msteams.hpp"
#include "channels/chat/slack.hpp"
#include "channels/chat/slack_api.hpp"
#include "channels/chat/slack_app.hpp"
#include "channels/chat/slack_channel.hpp"
#include "channels/chat/webhook_channel.hpp"
#include "channels/chat/webhook_url.hpp"
#include "channels/chat/whatsapp_channel.hpp"
#include "channels/chat/whatsapp_provider.hpp"
#include "channels/provider_registry.hpp"
#include "core/channel_kind.hpp"

namespace chopar::channels::chat {
namespace {

using core::StandsFor;

// An embed's title and description as Discord bounds them; a card's texts
// well inside Teams' 28 KB a post; Slack's header and section.
constexpr core::MessageField kDiscordFields[] = {
    {"title", false, 2000, 256 * 4, StandsFor::kTitle},
    {"body", false, 8000, 4096 * 4, StandsFor::kBody},
};
constexpr core::MessageField kSlackFields[] = {
    {"title", false, 2000, 150 * 4, StandsFor::kTitle},
    {"body", false, 8000, 3000 * 4, StandsFor::kBody},
};
constexpr core::MessageField kTeamsFields[] = {
    {"title", false, 2000, 2000, StandsFor::kTitle},
    {"body", false, 8000, 20000, StandsFor::kBody},
};
// A WhatsApp template's body parameters {{1}} and {{2}} (whatsapp.cpp cuts
// them to what fits a template's 1,024 characters).
constexpr core::MessageField kWhatsAppFields[] = {
    {"title", false, 2000, 200 * 4, StandsFor::kTitle},
    {"body", false, 4000, 700 * 4, StandsFor::kBody},
};

// Whether the configured provider of each channel takes local webhooks
// (allow_local_webhooks): PUT /v1/users/{id} checks addresses by it.
std::atomic<bool> discord_allows_local{false};
std::atomic<bool> teams_allows_local{false};
std::atomic<bool> slack_allows_local{false};

std::optional<std::string> DiscordAddressProblem(std::string_view address) {
  return WebhookUrlProblem(address, discord_allows_local.load());
}
std::optional<std::string> TeamsAddressProblem(std::string_view address) {
  return WebhookUrlProblem(address, teams_allows_local.load());
}
// A Slack address is a webhook URL or an installed workspace's
// conversation ("T0123ABCD/U0456EFGH").
std::optional<std::string> SlackAddressProblem(std::string_view address) {
  if (ParseSlackConversation(address)) return std::nullopt;
  if (!address.starts_with("http") && address.find('/') != std::string_view::npos &&
      address.find(':') == std::string_view::npos) {
    return "must be a webhook URL or a workspace's conversation \"<team id>/<user or channel "
           "id>\" (\"T0123ABCD/U0456EFGH\")";
  }
  return WebhookUrlProblem(address, slack_allows_local.load());
}

bool ParseBool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw std::invalid_argument(key + " must be true or false, not \"" + value + "\"");
}

std::vector<ProviderKey> Keys() {
  return {
      {.name = "allow_local_webhooks",
       .default_value = "false",
       .doc = "take http:// and loopback/private webhook URLs (a local test fake only)"},
      {.name = "timeout_seconds", .default_value = "10", .doc = "per post, 1 to 60"},
  };
}

ChatWebhookSettings WebhookSettingsFrom(const ProviderContext& context) {
  ChatWebhookSettings settings;
  settings.public_url = context.public_url;
  settings.allow_local_webhooks =
      ParseBool("allow_local_webhooks", context.Value("allow_local_webhooks"));
  settings.timeout = ParseTimeoutSeconds(context.Value("timeout_seconds"));
  return settings;
}

ProviderFactory FactoryOf(const ChatFormat& format, std::atomic<bool>& allows_local) {
  return [&format, &allows_local](const ProviderContext& context) -> std::unique_ptr<Channel> {
    ChatWebhookSettings settings = WebhookSettingsFrom(context);
    allows_local.store(settings.allow_local_webhooks);
    return std::make_unique<ChatWebhookChannel>(format, std::move(settings), context.http);
  };
}

// Slack's keys: the webhooks', then the app's (slack_app.hpp).
std::vector<ProviderKey> SlackKeys() {
  std::vector<ProviderKey> keys = Keys();
  for (ProviderKey& key : SlackAppKeys()) keys.push_back(std::move(key));
  return keys;
}

std::unique_ptr<Channel> SlackFactory(const ProviderContext& context) {
  ChatWebhookSettings settings = WebhookSettingsFrom(context);
  slack_allows_local.store(settings.allow_local_webhooks);
  SlackAppSettings app_settings = SlackAppSettingsFrom(context.values, context.public_url);
  std::optional<SlackWorkspaceAccess> workspaces;
  if (app_settings.configured()) {
    auto app =
        std::make_shared<const SlackApp>(std::move(app_settings), context.pool, context.http);
    workspaces = SlackWorkspaceAccess{app->settings().api_url, [app](std::string_view team_id) {
                                        return app->BotToken(team_id);
                                      }};
  }
  return std::make_unique<SlackChannel>(std::move(settings), std::move(workspaces), context.http);
}

}  // namespace

void RegisterChatChannels() {
  static const bool registered = [] {
    core::RegisterChannel({"discord", "discord_webhook", true, 30, "channels.discord",
                           kDiscordFields, DiscordAddressProblem});
    core::RegisterChannel({"msteams", "msteams_webhook", true, 30, "channels.msteams", kTeamsFields,
                           TeamsAddressProblem});
    core::RegisterChannel(
        {"slack", "slack_webhook", true, 30, "channels.slack", kSlackFields, SlackAddressProblem});
    // Off unless the user's preferences turn it on: Meta's policy asks for
    // the user's opt-in before a business messages them on WhatsApp.
    core::RegisterChannel({"whatsapp", "whatsapp_number", false, 10, "channels.whatsapp",
                           kWhatsAppFields, WhatsAppNumberProblem});
    RegisterProvider({.channel = "discord",
                      .provider = "discord",
                      .keys = Keys(),
                      .factory = FactoryOf(kDiscordFormat, discord_allows_local)});
    RegisterProvider({.channel = "msteams",
                      .provider = "msteams",
                      .keys = Keys(),
                      .factory = FactoryOf(kTeamsFormat, teams_allows_local)});
    RegisterProvider(
        {.channel = "slack", .provider = "slack", .keys = SlackKeys(), .factory = SlackFactory});
    RegisterProvider({.channel = "whatsapp",
                      .provider = "cloud_api",
                      .keys = WhatsAppKeys(),
                      .factory = [](const ProviderContext& context) -> std::unique_ptr<Channel> {
                        return std::make_unique<WhatsAppChannel>(
                            WhatsAppSettingsFrom(context.values), context.http);
                      }});
    return true;
  }();
  (void)registered;
}

}  // namespace chopar::channels::chat
