#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace chopar::channels::telegram {

// How chopar talks to one Telegram bot; a value, set once at construction.
// app::Config holds [channels.telegram] bot_token, bot_username, api_base,
// webhook_secret and max_per_second as this type, with these defaults;
// public_url comes from [server] public_url.
struct TelegramSettings {
  std::string bot_token;     // "123456:ABC…" from @BotFather; secret (it is in every URL)
  std::string bot_username;  // for https://t.me/<bot_username>?start=… links ("@" optional)
  std::string api_base = "https://api.telegram.org";
  std::string public_url;      // [server] public_url: base of links in messages
  std::string webhook_secret;  // X-Telegram-Bot-Api-Secret-Token; empty: webhook refused

  // Our side of Telegram's limits: sendMessage calls per second for the whole
  // bot (Telegram allows about 30; more with paid broadcasts) and the minimum
  // spacing of two messages to one chat (about 1 per second; the extra 50 ms
  // cover a first request that opens its connection while the next one
  // reuses it, so the two still arrive at Telegram a second apart).
  double max_per_second = 30;
  std::chrono::milliseconds per_chat_interval{1050};
  // A message whose rate-limit turn is further away than this is not held
  // inside Send(); it comes back as a retry after that wait, so one batch
  // never outlives the worker's lease.
  std::chrono::seconds max_wait{30};
  std::chrono::milliseconds timeout{10000};  // per sendMessage request

  std::chrono::seconds link_ttl{24 * 3600};  // lifetime of a connect link
  std::chrono::seconds long_poll{10};        // getUpdates timeout (long polling)
};

// The bot's numeric id: the part of the token before ':' ("" if malformed).
// Not secret; it keys the persisted polling offset.
std::string TelegramBotId(std::string_view bot_token);

}  // namespace chopar::channels::telegram
