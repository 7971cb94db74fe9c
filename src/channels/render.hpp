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
  std::string_view unsubscribe;  // the footer line of an email
  std::string_view preferences;  // label of the email's unsubscribe link
};
const Words& WordsFor(std::string_view locale);

// `text` cut to at most `max_chars` Unicode code points, "…" included when
// cut (what a provider counts as characters, not bytes).
std::string CutCodePoints(std::string_view text, std::size_t max_chars);

// public_url + link, or nullopt when the message has no link.
std::optional<std::string> AbsoluteLink(const Message& message, std::string_view public_url);

// Escapes &, <, >, " and ' for HTML text and attribute values (core::HtmlEscape).
std::string HtmlEscape(std::string_view text);
// HtmlEscape, with each line break kept as "<br>" (a multi-line body such
// as a report stays one fact a line in an email).
std::string HtmlEscapeLines(std::string_view text);

// Telegram sendMessage text for parse_mode HTML: the template's
// telegram.text (already HTML) or the bold title and the body; then the link.
std::string RenderTelegramHtml(const Message& message, std::string_view public_url);

// The Web Push payload: {"id", "title", "body", "url", "type"}.
nlohmann::json RenderPushPayload(const Message& message, std::string_view public_url);

// SMS text: the template's sms.text or "title: body", then the link, cut (on
// a code point boundary, with "…") to at most `max_chars` characters.
std::string RenderSmsText(const Message& message, std::string_view public_url,
                          std::size_t max_chars = 300);

// Email parts (the MIME message is assembled by the email channel).
struct EmailContent {
  std::string subject;
  std::string text;  // text/plain, UTF-8
  std::string html;  // text/html, UTF-8
  std::string unsubscribe_url;
};
// The subject is the template's email.subject or the title. The HTML is a
// small responsive layout with inline styles (what mail clients keep): the
// template's email.html, or the title as a heading and the body; the link as
// a button; a footer with `unsubscribe_url`. The text alternative is the
// template's email.text, or the title and body; then the link and the
// footer.
EmailContent RenderEmail(const Message& message, std::string_view public_url,
                         std::string unsubscribe_url);

}  // namespace chopar::channels
