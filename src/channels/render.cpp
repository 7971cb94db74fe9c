#include "channels/render.hpp"

namespace chopar::channels {
namespace {

constexpr Words kEnglish{"Open", "You receive this because of your notification settings. Change them here:",
                         "Notification settings"};
constexpr Words kUzbek{"Ochish", "Siz bu xabarni bildirishnoma sozlamalaringiz tufayli oldingiz. Ularni bu yerda o‘zgartiring:",
                       "Bildirishnoma sozlamalari"};

std::string_view TrimSlash(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return url;
}

// Cuts UTF-8 `text` to at most `max_chars` code points, ending in "…" when cut.
std::string CutCodePoints(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars - 1) {
      // Is there more than one code point left? Then cut here and add "…".
      std::size_t rest = 0;
      for (std::size_t j = i; j < text.size(); ++j) rest += (static_cast<unsigned char>(text[j]) & 0xC0) != 0x80;
      if (rest > 1) return text.substr(0, i) + "…";
      return text;
    }
    ++chars;
  }
  return text;
}

}  // namespace

const Words& WordsFor(std::string_view locale) {
  if (locale == "uz" || locale.starts_with("uz-")) return kUzbek;
  return kEnglish;
}

std::optional<std::string> AbsoluteLink(const Message& message, std::string_view public_url) {
  if (!message.link) return std::nullopt;
  return std::string(TrimSlash(public_url)) + *message.link;
}

std::string PreferencesUrl(const Message& message, std::string_view public_url) {
  return std::string(TrimSlash(public_url)) + "/preferences?user=" + std::to_string(message.user_id);
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string HtmlEscapeLines(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    out += HtmlEscape(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    out += "<br>\n";
    start = end + 1;
  }
}

std::string RenderTelegramHtml(const Message& message, std::string_view public_url) {
  std::string text = "<b>" + HtmlEscape(message.title) + "</b>";
  if (!message.body.empty()) text += "\n" + HtmlEscape(message.body);
  if (const auto link = AbsoluteLink(message, public_url)) {
    text += "\n<a href=\"" + HtmlEscape(*link) + "\">" + std::string(WordsFor(message.locale).open) + "</a>";
  }
  return text;
}

nlohmann::json RenderPushPayload(const Message& message, std::string_view public_url) {
  const auto link = AbsoluteLink(message, public_url);
  return {{"id", message.notification_id},
          {"title", message.title},
          {"body", message.body},
          {"url", link ? nlohmann::json(*link) : nlohmann::json(nullptr)},
          {"type", message.type}};
}

std::string RenderSmsText(const Message& message, std::string_view public_url, std::size_t max_chars) {
  std::string text = message.title;
  if (!message.body.empty()) text += ": " + message.body;
  const auto link = AbsoluteLink(message, public_url);
  if (!link) return CutCodePoints(text, max_chars);
  // Keep the link whole; shorten the words before it.
  const std::size_t link_chars = link->size() + 1;
  if (link_chars + 10 > max_chars) return CutCodePoints(text, max_chars);
  return CutCodePoints(text, max_chars - link_chars) + " " + *link;
}

EmailContent RenderEmail(const Message& message, std::string_view public_url) {
  const Words& words = WordsFor(message.locale);
  EmailContent content;
  content.subject = message.title;
  content.unsubscribe_url = PreferencesUrl(message, public_url);
  const auto link = AbsoluteLink(message, public_url);

  content.text = message.title + "\n\n";
  if (!message.body.empty()) content.text += message.body + "\n\n";
  if (link) content.text += std::string(words.open) + ": " + *link + "\n\n";
  content.text += "-- \n" + std::string(words.unsubscribe) + "\n" + content.unsubscribe_url + "\n";

  content.html = "<!doctype html><html><body style=\"font-family:sans-serif\">\n<h2>" + HtmlEscape(message.title) + "</h2>\n";
  if (!message.body.empty()) content.html += "<p>" + HtmlEscapeLines(message.body) + "</p>\n";
  if (link) content.html += "<p><a href=\"" + HtmlEscape(*link) + "\">" + std::string(words.open) + "</a></p>\n";
  content.html += "<hr><p style=\"color:#666;font-size:12px\">" + HtmlEscape(words.unsubscribe) + " <a href=\"" +
                  HtmlEscape(content.unsubscribe_url) + "\">" + std::string(words.preferences) + "</a></p>\n</body></html>\n";
  return content;
}

}  // namespace chopar::channels
