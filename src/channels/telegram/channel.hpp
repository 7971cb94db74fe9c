#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "channels/channel.hpp"
#include "channels/telegram/bot_api.hpp"
#include "channels/telegram/rate_limiter.hpp"
#include "channels/telegram/settings.hpp"
#include "core/clock.hpp"
#include "net/http_client.hpp"

namespace chopar::channels::telegram {

// A ready sendMessage: HTML text (parse_mode HTML) for one chat.
struct TelegramText {
  std::int64_t chat_id = 0;
  std::string html;
  std::optional<std::int64_t> delivery_id{};  // a delivery's: named in a header (DeliveryIdHeader)
};

// The Telegram bot channel: one sendMessage per message, a whole batch in
// flight at once through the shared net::HttpClient. Telegram's limits are kept on
// our side by a TelegramRateLimiter shared by every call: each request gets a
// turn (net::HttpRequest::not_before), so a burst waits instead of failing and a
// message waiting for its chat never holds back messages to other chats.
//
// Outcomes: ok → sent (provider id = result.message_id); 403 (bot blocked,
// user deactivated) and 400 "chat not found" → address gone; other 400 →
// permanent; 429 → retry after parameters.retry_after; 5xx, timeouts and
// network errors → retry; 401/404 (the bot token was refused) → retry, since
// the message is fine and the configuration is not. A message whose turn is
// more than `max_wait` away → retry after that wait, nothing sent.
//
// Thread-safe: Send() may run on several worker threads at once.
class TelegramChannel final : public Channel {
 public:
  // `http` and `clock` are shared and must outlive the channel; the clock is
  // what an HTTP-date Retry-After counts from (the pacing itself runs on the
  // steady clock). Throws std::invalid_argument for a non-positive
  // max_per_second.
  TelegramChannel(TelegramSettings settings, net::HttpClient& http, const core::Clock& clock);

  std::vector<Outcome> Send(std::span<const Message> messages) override;
  [[nodiscard]] std::string_view ProviderName() const override { return "telegram"; }

  // Sends ready texts under the same limits (the connect flow's replies);
  // `max_wait` overrides settings().max_wait. One outcome per text, in
  // order; never throws for provider failures.
  std::vector<Outcome> SendTexts(std::span<const TelegramText> texts,
                                 std::optional<std::chrono::seconds> max_wait = std::nullopt);

  [[nodiscard]] const TelegramSettings& settings() const { return settings_; }
  [[nodiscard]] const TelegramBotApi& api() const { return api_; }
  [[nodiscard]] const core::Clock& clock() const { return clock_; }

 private:
  const TelegramSettings settings_;
  const TelegramBotApi api_;
  net::HttpClient& http_;
  const core::Clock& clock_;
  TelegramRateLimiter limiter_;
};

// The sendMessage text of a notification: RenderTelegramHtml, with the body
// shortened (on a code point boundary, ending in "…") so the message stays
// within Telegram's 4096 characters.
std::string TelegramMessageText(const Message& message, std::string_view public_url);

// Maps a sendMessage answer to the worker's outcome (see TelegramChannel).
Outcome TelegramSendOutcome(const BotApiReply& reply);

}  // namespace chopar::channels::telegram
