#include "channels/telegram/updates.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "channels/render.hpp"
#include "channels/telegram/queries.hpp"
#include "channels/telegram/texts.hpp"
#include "core/encoding.hpp"
#include "core/json.hpp"
#include "core/request_error.hpp"
#include "core/text.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::telegram {
namespace {

using nlohmann::json;

// 24 random bytes in base64url: 32 characters of Telegram's start-payload
// alphabet (A-Z a-z 0-9 _ -), as the migration's CHECK expects.
constexpr std::size_t kTokenBytes = 24;
constexpr std::size_t kTokenChars = 32;
// A reply waits at most this long for its rate-limit turn: a webhook request
// is waiting on it. Later than that, the binding stands without a greeting.
constexpr std::chrono::seconds kReplyMaxWait{5};

std::string_view BotUsername(const TelegramSettings& settings) {
  std::string_view name = settings.bot_username;
  if (name.starts_with('@')) name.remove_prefix(1);
  return name;
}

bool IsTokenShape(std::string_view text) {
  return text.size() == kTokenChars && std::all_of(text.begin(), text.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '_' || c == '-';
         });
}

// The payload of "/start <payload>" or "/start@<bot> <payload>" ("" for a bare
// /start); nullopt when the text is not a /start addressed to this bot.
std::optional<std::string_view> StartPayload(std::string_view text, std::string_view bot_username) {
  constexpr std::string_view kStart = "/start";
  if (!text.starts_with(kStart)) return std::nullopt;
  text.remove_prefix(kStart.size());
  if (text.starts_with('@')) {
    const auto end = text.find_first_of(" \t\n");
    const std::string_view mention =
        text.substr(1, end == std::string_view::npos ? text.npos : end - 1);
    if (!core::EqualsIgnoringCase(mention, bot_username)) return std::nullopt;
    text.remove_prefix(end == std::string_view::npos ? text.size() : end);
  }
  if (!text.empty() && text.front() != ' ' && text.front() != '\t' && text.front() != '\n')
    return std::nullopt;
  return core::TrimAny(text, " \t\n");
}

const json* ObjectAt(const json& parent, const char* key) {
  const auto it = parent.find(key);
  return it != parent.end() && it->is_object() ? &*it : nullptr;
}

std::optional<std::int64_t> IntAt(const json& parent, const char* key) {
  const auto it = parent.find(key);
  if (it == parent.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

std::string StringAt(const json& parent, const char* key) {
  const auto it = parent.find(key);
  return it != parent.end() && it->is_string() ? it->get<std::string>() : std::string();
}

TelegramUpdateResult Reply(TelegramUpdateEffect effect, std::optional<std::int64_t> user_id,
                           std::int64_t chat_id, std::string_view text) {
  return {effect, user_id, TelegramText{chat_id, HtmlEscape(text)}};
}

}  // namespace

std::string_view TelegramUpdateEffectName(TelegramUpdateEffect effect) {
  switch (effect) {
    case TelegramUpdateEffect::kIgnored:
      return "ignored";
    case TelegramUpdateEffect::kConnected:
      return "connected";
    case TelegramUpdateEffect::kReplayed:
      return "replayed";
    case TelegramUpdateEffect::kLinkExpired:
      return "link_expired";
    case TelegramUpdateEffect::kLinkInvalid:
      return "link_invalid";
    case TelegramUpdateEffect::kLinkUsed:
      return "link_used";
    case TelegramUpdateEffect::kHowToConnect:
      return "how_to_connect";
    case TelegramUpdateEffect::kDeactivated:
      return "deactivated";
    case TelegramUpdateEffect::kReactivated:
      return "reactivated";
  }
  return "unknown";
}

TelegramUpdates::TelegramUpdates(TelegramChannel& channel, db::Pool& pool, const core::Clock& clock)
    : channel_(channel), pool_(pool), clock_(clock) {}

TelegramLink TelegramUpdates::CreateLink(std::int64_t user_id) {
  const std::string_view username = BotUsername(channel_.settings());
  if (username.empty()) {
    throw core::Unavailable("Telegram is not configured: set [channels.telegram] bot_username");
  }
  const std::string token = core::Base64UrlEncode(core::RandomBytes(kTokenBytes));
  const core::TimePoint now = clock_.Now();
  const core::TimePoint expires = now + channel_.settings().link_ttl;

  auto tx = pool_.Begin("telegram_create_link");
  if (tx.Exec(queries::kTelegramInsertLinkToken, token, user_id, core::FormatRfc3339Micros(now),
              core::FormatRfc3339Micros(expires))
          .Empty()) {
    throw core::UserNotFound(user_id);
  }
  tx.Exec(queries::kTelegramPruneLinkTokens, user_id, core::FormatRfc3339Micros(now));
  tx.Commit();
  return {"https://t.me/" + std::string(username) + "?start=" + token, expires};
}

void TelegramUpdates::HandleWebhook(std::string_view secret_header, std::string_view body) {
  const std::string& secret = channel_.settings().webhook_secret;
  // Equal-length digests, so the comparison's time says nothing about the
  // secret's length either.
  constexpr std::string_view kDigestKey = "chopar telegram webhook";
  if (secret.empty() || !core::ConstantTimeEquals(core::HmacSha256(kDigestKey, secret_header),
                                                  core::HmacSha256(kDigestKey, secret))) {
    throw core::Unauthorized("wrong or missing X-Telegram-Bot-Api-Secret-Token");
  }
  const json update = core::ParseJsonOrDiscarded(body);
  if (!update.is_object()) throw core::InvalidJson("the body must be a Telegram Update object");
  HandleUpdate(update);
}

TelegramUpdateResult TelegramUpdates::HandleUpdate(const json& update) {
  auto tx = pool_.Begin("telegram_update");
  TelegramUpdateResult result = Apply(tx, update);
  tx.Commit();
  if (result.reply) SendReplies(std::span<const TelegramText>(&*result.reply, 1));
  return result;
}

TelegramUpdateRequest ReadTelegramUpdate(const json& update, std::string_view bot_username) {
  if (!update.is_object()) return {};
  if (const json* message = ObjectAt(update, "message")) {
    const json* chat = ObjectAt(*message, "chat");
    // Only a private chat is bound: a group would show a user's notifications to everyone in it.
    if (chat == nullptr || !IntAt(*chat, "id") || StringAt(*chat, "type") != "private") return {};
    const std::string text = StringAt(*message, "text");
    const auto payload = StartPayload(text, bot_username);
    if (!payload) return {};
    const json* from = ObjectAt(*message, "from");
    return {TelegramUpdateRequest::Kind::kStart, *IntAt(*chat, "id"), std::string(*payload),
            from != nullptr ? StringAt(*from, "language_code") : "", false};
  }
  if (const json* member = ObjectAt(update, "my_chat_member")) {
    const json* chat = ObjectAt(*member, "chat");
    const json* new_member = ObjectAt(*member, "new_chat_member");
    if (chat == nullptr || new_member == nullptr || !IntAt(*chat, "id")) return {};
    const std::string status = StringAt(*new_member, "status");
    if (status != "kicked" && status != "member") return {};
    return {TelegramUpdateRequest::Kind::kMemberStatus, *IntAt(*chat, "id"), "", "",
            status == "member"};
  }
  return {};
}

TelegramUpdateResult TelegramUpdates::Apply(db::Transaction& tx, const json& update) {
  const TelegramUpdateRequest request =
      ReadTelegramUpdate(update, BotUsername(channel_.settings()));
  switch (request.kind) {
    case TelegramUpdateRequest::Kind::kIgnore:
      return {};
    case TelegramUpdateRequest::Kind::kStart:
      return ApplyStart(tx, request);
    case TelegramUpdateRequest::Kind::kMemberStatus:
      return ApplyMemberStatus(tx, request);
  }
  return {};
}

TelegramUpdateResult TelegramUpdates::ApplyStart(db::Transaction& tx,
                                                 const TelegramUpdateRequest& request) {
  const std::int64_t chat_id = request.chat_id;
  const std::string_view payload = request.payload;
  const std::string& from_locale = request.from_locale;

  if (payload.empty()) {
    return Reply(TelegramUpdateEffect::kHowToConnect, std::nullopt, chat_id,
                 TelegramTextsFor(from_locale).how_to_connect);
  }
  if (!IsTokenShape(payload)) {
    return Reply(TelegramUpdateEffect::kLinkInvalid, std::nullopt, chat_id,
                 TelegramTextsFor(from_locale).link_invalid);
  }
  const std::string now = core::FormatRfc3339Micros(clock_.Now());
  const db::Result token = tx.Exec(queries::kTelegramFindLinkToken, payload, now);
  if (token.Empty()) {
    return Reply(TelegramUpdateEffect::kLinkInvalid, std::nullopt, chat_id,
                 TelegramTextsFor(from_locale).link_invalid);
  }
  const std::int64_t user_id = token.Int(0, "user_id");
  const TelegramTexts& texts = TelegramTextsFor(token.String(0, "locale"));
  if (const auto used_by = token.OptInt(0, "used_chat_id")) {
    // The same update delivered again (webhook retry, a restart): already done.
    if (*used_by == chat_id) return {TelegramUpdateEffect::kReplayed, user_id, std::nullopt};
    return Reply(TelegramUpdateEffect::kLinkUsed, user_id, chat_id, texts.link_used);
  }
  if (token.Bool(0, "expired"))
    return Reply(TelegramUpdateEffect::kLinkExpired, user_id, chat_id, texts.link_expired);

  tx.Exec(queries::kTelegramUseLinkToken, payload, now, chat_id);
  spdlog::info("telegram: user {} connected a chat", user_id);
  return Reply(TelegramUpdateEffect::kConnected, user_id, chat_id, texts.connected);
}

TelegramUpdateResult TelegramUpdates::ApplyMemberStatus(db::Transaction& tx,
                                                        const TelegramUpdateRequest& request) {
  const TelegramUpdateEffect effect =
      request.active ? TelegramUpdateEffect::kReactivated : TelegramUpdateEffect::kDeactivated;
  const db::Result changed =
      tx.Exec(queries::kTelegramSetChatActive, request.chat_id, request.active);
  std::optional<std::int64_t> user_id;
  if (!changed.Empty()) user_id = changed.Int(0, 0);
  return {effect, user_id, std::nullopt};
}

void TelegramUpdates::SendReplies(std::span<const TelegramText> replies) {
  if (replies.empty()) return;
  const std::vector<Outcome> outcomes = channel_.SendTexts(replies, kReplyMaxWait);
  for (const Outcome& outcome : outcomes) {
    if (outcome.kind != OutcomeKind::kSent)
      spdlog::warn("telegram: reply not sent: {}", outcome.detail);
  }
}

}  // namespace chopar::channels::telegram
