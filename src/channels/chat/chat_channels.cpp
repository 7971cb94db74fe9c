#include "channels/chat/chat_channels.hpp"

#include <atomic>
#include <charconv>
#include <memory>
#include <stdexcept>

#include "channels/chat/discord.hpp"
#include "channels/chat/msteams.hpp"
#include "channels/chat/slack.hpp"
#include "channels/chat/webhook_channel.hpp"
#include "channels/chat/webhook_url.hpp"
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
std::optional<std::string> SlackAddressProblem(std::string_view address) {
  return WebhookUrlProblem(address, slack_allows_local.load());
}

bool ParseBool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw std::invalid_argument(key + " must be true or false, not \"" + value + "\"");
}

std::chrono::milliseconds ParseTimeout(const std::string& value) {
  int seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || seconds < 1 || seconds > 60) {
    throw std::invalid_argument("timeout_seconds must be a whole number from 1 to 60, not \"" +
                                value + "\"");
  }
  return std::chrono::seconds(seconds);
}

std::vector<ProviderKey> Keys() {
  return {
      {.name = "allow_local_webhooks",
       .default_value = "false",
       .doc = "take http:// and loopback/private webhook URLs (a local test fake only)"},
      {.name = "timeout_seconds", .default_value = "10", .doc = "per post, 1 to 60"},
  };
}

ProviderFactory FactoryOf(const ChatFormat& format, std::atomic<bool>& allows_local) {
  return [&format, &allows_local](const ProviderContext& context) -> std::unique_ptr<Channel> {
    ChatWebhookSettings settings;
    settings.public_url = context.public_url;
    settings.allow_local_webhooks =
        ParseBool("allow_local_webhooks", context.Value("allow_local_webhooks"));
    settings.timeout = ParseTimeout(context.Value("timeout_seconds"));
    allows_local.store(settings.allow_local_webhooks);
    return std::make_unique<ChatWebhookChannel>(format, std::move(settings), context.http);
  };
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
    RegisterProvider({.channel = "discord",
                      .provider = "discord",
                      .keys = Keys(),
                      .factory = FactoryOf(kDiscordFormat, discord_allows_local)});
    RegisterProvider({.channel = "msteams",
                      .provider = "msteams",
                      .keys = Keys(),
                      .factory = FactoryOf(kTeamsFormat, teams_allows_local)});
    RegisterProvider({.channel = "slack",
                      .provider = "slack",
                      .keys = Keys(),
                      .factory = FactoryOf(kSlackFormat, slack_allows_local)});
    return true;
  }();
  (void)registered;
}

}  // namespace chopar::channels::chat
