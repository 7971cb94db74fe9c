#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "channels/telegram/channel.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"

namespace chopar::channels::telegram {

// What one Telegram update did.
enum class TelegramUpdateEffect {
  kIgnored,       // not something chopar acts on (other messages, group chats, malformed)
  kConnected,     // "/start <token>": the chat is now the token's user's connection
  kReplayed,      // the same "/start <token>" again from the chat it bound: nothing changes
  kLinkExpired,   // refused politely: the token's time ran out
  kLinkInvalid,   // refused politely: no such token
  kLinkUsed,      // refused politely: the token already bound another chat
  kHowToConnect,  // a bare "/start": told how to connect
  kDeactivated,   // my_chat_member "kicked": the user blocked the bot
  kReactivated,   // my_chat_member "member": the user unblocked it
};
std::string_view TelegramUpdateEffectName(TelegramUpdateEffect effect);

struct TelegramUpdateResult {
  TelegramUpdateEffect effect = TelegramUpdateEffect::kIgnored;
  std::optional<std::int64_t> user_id;  // the user concerned, when known
  std::optional<TelegramText> reply;    // what the bot answers, sent after commit
};

// A one-time deep link that connects a user's Telegram chat.
struct TelegramLink {
  std::string url;  // https://t.me/<bot>?start=<token>
  core::TimePoint expires_at;
};

// What one update asks of chopar, read without touching the database.
struct TelegramUpdateRequest {
  enum class Kind {
    kIgnore,        // anything chopar does not act on (group chats, other messages, malformed)
    kStart,         // "/start [payload]" in a private chat, addressed to this bot
    kMemberStatus,  // my_chat_member whose new status is "kicked" or "member"
  };
  Kind kind = Kind::kIgnore;
  std::int64_t chat_id = 0;
  std::string payload;      // kStart: the text after /start, trimmed ("" for a bare /start)
  std::string from_locale;  // kStart: the sender's language_code, "" if absent
  bool active = false;      // kMemberStatus: true for "member", false for "kicked"
};

// Reads an Update object (any JSON value; anything unexpected is kIgnore).
// `bot_username` without "@": "/start@other_bot" is not for this bot. Pure,
// never throws; thread-safe.
TelegramUpdateRequest ReadTelegramUpdate(const nlohmann::json& update,
                                         std::string_view bot_username);

// The Telegram connect flow of docs/api.md: one-time t.me deep links, and the
// updates the bot receives (by webhook, or from TelegramPoller).
//
// "/start <token>" in a private chat binds that chat to the token's user
// (telegram_connections upserted, active) and greets them in their locale; a
// token works once, and the same update delivered again changes nothing and
// sends nothing. Expired, unknown or already used tokens get a polite reply
// and change nothing. my_chat_member with new status "kicked" sets the
// chat's connections inactive, "member" active again.
//
// Database effects commit before any reply is sent: no Bot API call happens
// inside a transaction. A reply that cannot be sent is logged, not retried.
// Thread-safe; `channel`, `pool` and `clock` must outlive this object.
class TelegramUpdates {
 public:
  TelegramUpdates(TelegramChannel& channel, db::Pool& pool, const core::Clock& clock);

  // GET /v1/users/{id}/telegram/link: a new one-time token valid for
  // link_ttl. Throws core::RequestError kUserNotFound for an unknown user,
  // kUnavailable when bot_username is not configured.
  TelegramLink CreateLink(std::int64_t user_id);

  // POST /v1/telegram/webhook: `secret_header` is the request's
  // X-Telegram-Bot-Api-Secret-Token ("" if absent), compared in constant time
  // with webhook_secret before the body is even parsed. Returns normally
  // (the route answers 200) for every well-formed update, acted on or not,
  // so Telegram does not redeliver it. Throws core::RequestError kUnauthorized for a wrong
  // or missing secret or when no webhook_secret is configured (nothing
  // changes), kInvalidJson for a body that is not a JSON object; database
  // errors propagate (answer 5xx: Telegram redelivers, which is harmless).
  void HandleWebhook(std::string_view secret_header, std::string_view body);

  // Applies one update in its own transaction, then sends the reply.
  TelegramUpdateResult HandleUpdate(const nlohmann::json& update);

  // The database effects of one update inside the caller's transaction; the
  // caller commits and then sends `reply` (TelegramPoller does this for a
  // whole getUpdates batch together with the offset).
  TelegramUpdateResult Apply(db::Transaction& tx, const nlohmann::json& update);

  // Sends replies of committed updates; failures are logged.
  void SendReplies(std::span<const TelegramText> replies);

  [[nodiscard]] TelegramChannel& channel() { return channel_; }

 private:
  TelegramUpdateResult ApplyStart(db::Transaction& tx, const TelegramUpdateRequest& request);
  TelegramUpdateResult ApplyMemberStatus(db::Transaction& tx, const TelegramUpdateRequest& request);

  TelegramChannel& channel_;
  db::Pool& pool_;
  const core::Clock& clock_;
};

}  // namespace chopar::channels::telegram
