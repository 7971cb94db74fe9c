#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "channels/channel.hpp"

namespace chopar::channels {

// The one place a notification becomes text for a channel. Pure functions;
// thread-safe. `public_url` is chopar's configured base URL
// ([server] public_url): internal links become absolute against it.

// The few fixed words of outgoing messages, per locale ("uz", "en"; anything
// else falls back to English).
struct Words {
  std::string_view open;         // the link label
  std::string_view unsubscribe;  // the footer line pointing at preferences
  std::string_view preferences;  // label of the preferences link
};
const Words& WordsFor(std::string_view locale);

// public_url + link, or nullopt when the message has no link.
std::optional<std::string> AbsoluteLink(const Message& message, std::string_view public_url);
// Where a user changes what they receive (List-Unsubscribe, footers).
std::string PreferencesUrl(const Message& message, std::string_view public_url);

// Escapes &, <, > and " for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);
// HtmlEscape, with each line break kept as "<br>" (a multi-line body such
// as a report stays one fact a line in an email).
std::string HtmlEscapeLines(std::string_view text);

// Telegram sendMessage text for parse_mode HTML: bold title, body, link.
std::string RenderTelegramHtml(const Message& message, std::string_view public_url);

// The Web Push payload: {"id", "title", "body", "url", "type"}.
nlohmann::json RenderPushPayload(const Message& message, std::string_view public_url);

// SMS text: title, body and link, cut (on a code point boundary, with "…")
// to at most `max_chars` characters.
std::string RenderSmsText(const Message& message, std::string_view public_url, std::size_t max_chars = 300);

// Email parts (the MIME message is assembled by the email channel).
struct EmailContent {
  std::string subject;
  std::string text;  // text/plain, UTF-8
  std::string html;  // text/html, UTF-8
  std::string unsubscribe_url;
};
EmailContent RenderEmail(const Message& message, std::string_view public_url);

}  // namespace chopar::channels
