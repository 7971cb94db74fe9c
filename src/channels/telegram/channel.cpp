#include "channels/telegram/channel.hpp"

#include <algorithm>
#include <cctype>

#include "channels/outcome_unknown.hpp"
#include "channels/render.hpp"
#include "core/text.hpp"

namespace chopar::channels::telegram {
namespace {

using std::chrono::steady_clock;

// Telegram counts message length in UTF-16 code units after entity parsing;
// the title (at most 500 characters), the link label and the markup stay well
// inside what is left.
constexpr std::size_t kMaxTextUnits = 4096;
constexpr std::size_t kReservedUnits = 96;

std::size_t Utf16Units(std::string_view text) {
  std::size_t units = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    units += c >= 0xF0 ? 2 : 1;        // 4-byte sequences are surrogate pairs
  }
  return units;
}

// `text` cut to at most `max_units` UTF-16 units on a code point boundary,
// "…" included.
std::string CutUtf16(const std::string& text, std::size_t max_units) {
  if (Utf16Units(text) <= max_units) return text;
  std::size_t units = 0;
  std::size_t end = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;
    const std::size_t width = c >= 0xF0 ? 2 : 1;
    if (units + width + 1 > max_units) break;  // + 1 for "…"
    units += width;
    end = i + 1;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  }
  return text.substr(0, end) + "…";
}

std::chrono::seconds CeilSeconds(steady_clock::duration d) {
  return std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(d));
}

}  // namespace

std::string TelegramMessageText(const Message& message, std::string_view public_url) {
  const std::size_t budget =
      kMaxTextUnits - kReservedUnits - std::min(Utf16Units(message.title), kMaxTextUnits / 2);
  if (Utf16Units(message.body) <= budget) return RenderTelegramHtml(message, public_url);
  Message shortened = message;
  shortened.body = CutUtf16(message.body, budget);
  return RenderTelegramHtml(shortened, public_url);
}

Outcome TelegramSendOutcome(const BotApiReply& reply) {
  if (reply.ok) {
    const auto id = reply.result.is_object() ? reply.result.find("message_id") : reply.result.end();
    if (reply.result.is_object() && id != reply.result.end() && id->is_number_integer()) {
      return Outcome::Sent(std::to_string(id->get<std::int64_t>()));
    }
    return Outcome::Sent();
  }
  if (reply.error_code == 0) {
    return Outcome::Retry(reply.timed_out
                              ? "telegram: no answer in time (" + reply.description + ")"
                              : "telegram: " + reply.description);
  }
  const int code = reply.error_code;
  const std::string detail = "telegram " + std::to_string(code) + ": " + reply.description;
  if (code == 429) return Outcome::Retry(detail, reply.retry_after);
  if (code == 403) return Outcome::AddressGone(detail);
  if (code == 400) {
    if (core::ContainsIgnoringCase(reply.description, "chat not found")) return Outcome::AddressGone(detail);
    return Outcome::Permanent(detail);
  }
  if (code == 401 || code == 404)
    return Outcome::Retry(detail + " (check [channels.telegram] bot_token)");
  if (code >= 500 || code < 400) return Outcome::Retry(detail, reply.retry_after);
  return Outcome::Permanent(detail);
}

TelegramChannel::TelegramChannel(TelegramSettings settings, net::HttpClient& http,
                                 const core::Clock& clock)
    : settings_(std::move(settings)),
      api_(settings_),
      http_(http),
      clock_(clock),
      limiter_(settings_.max_per_second, settings_.per_chat_interval) {}

std::vector<Outcome> TelegramChannel::Send(std::span<const Message> messages) {
  std::vector<Outcome> outcomes(messages.size());
  std::vector<TelegramText> texts;
  std::vector<std::size_t> text_of;  // index into `messages` of each text
  texts.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Message& m = messages[i];
    if (!m.telegram_chat_id) {
      outcomes[i] = Outcome::Permanent("telegram: the user has no Telegram chat");
      continue;
    }
    texts.push_back(
        {*m.telegram_chat_id, TelegramMessageText(m, settings_.public_url), m.delivery_id});
    text_of.push_back(i);
  }
  std::vector<Outcome> sent = SendTexts(texts);
  for (std::size_t j = 0; j < sent.size(); ++j) outcomes[text_of[j]] = std::move(sent[j]);
  return outcomes;
}

std::vector<Outcome> TelegramChannel::SendTexts(std::span<const TelegramText> texts,
                                                std::optional<std::chrono::seconds> max_wait) {
  std::vector<Outcome> outcomes(texts.size());
  std::vector<net::HttpRequest> requests;
  std::vector<std::size_t> request_of;  // index into `texts` of each request
  const auto now = steady_clock::now();
  const auto deadline = now + max_wait.value_or(settings_.max_wait);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto turn = limiter_.Reserve(texts[i].chat_id, now, deadline);
    if (!turn.reserved) {
      outcomes[i] = Outcome::Retry(
          "telegram: waiting for our rate limit (max_per_second, one per chat per interval)",
          CeilSeconds(turn.at - now));
      continue;
    }
    requests.push_back(api_.SendMessage(texts[i].chat_id, texts[i].html, turn.at));
    if (texts[i].delivery_id)
      AddDeliveryHeaders(requests.back().headers, *texts[i].delivery_id);
    request_of.push_back(i);
  }

  const std::vector<net::HttpResponse> responses = http_.PerformAll(requests);
  const core::TimePoint answered_at = clock_.Now();
  for (std::size_t j = 0; j < responses.size(); ++j) {
    const std::size_t i = request_of[j];
    if (auto unanswered = UnansweredHttpOutcome(responses[j], "telegram")) {
      outcomes[i] = std::move(*unanswered);
      continue;
    }
    const BotApiReply reply = ParseBotApiReply(responses[j], answered_at);
    outcomes[i] = TelegramSendOutcome(reply);
    if (reply.error_code == 429 && reply.retry_after) {
      // Telegram's own flood control for this chat: later messages wait too.
      limiter_.Defer(texts[i].chat_id, steady_clock::now() + *reply.retry_after);
    }
  }
  return outcomes;
}

}  // namespace chopar::channels::telegram
